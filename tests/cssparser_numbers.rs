//! The vendored cssparser's one change (`vendor/cssparser/PATCHED.md`): a
//! number's exponent is applied with `f64::powi` instead of libm's `pow`.
//! Every number of an exponent up to 22 either way, with either sign, reads
//! as the published crate reads it, which this test computes with
//! `f64::powf` as upstream did; beyond that, a huge exponent still gives
//! infinity or zero, and units and percentages (kept as a fraction) read
//! as before.

use cssparser::{Parser, Token};

/// The numbers of `css`, in order (cssparser keeps them as `f32`: the
/// comparison is after that cast, as every caller sees them).
fn numbers(css: &str) -> Vec<f32> {
    let mut parser = Parser::new(css);
    let mut out = Vec::new();
    while let Ok(token) = parser.next_including_whitespace() {
        match token {
            Token::Number { value, .. }
            | Token::Percentage {
                unit_value: value, ..
            } => out.push(*value),
            Token::Dimension { value, .. } => out.push(*value),
            _ => {}
        }
    }
    out
}

#[test]
fn a_number_with_an_exponent_reads_as_upstream_reads_it() {
    let mut css = String::new();
    let mut want = Vec::new();
    for mantissa in ["1", "2.5", "9.75", "0.001", "123456"] {
        for exponent in -22i32..=22 {
            for (text, sign) in [("e", 1.0f64), ("E-", -1.0), ("e+", 1.0)] {
                let e = exponent.abs() as f64;
                css.push_str(&format!("{mantissa}{text}{} ", exponent.abs()));
                let m: f64 = mantissa.parse().unwrap();
                want.push((m * f64::powf(10., sign * e)) as f32);
            }
        }
    }
    assert_eq!(numbers(&css), want);
}

#[test]
fn a_huge_exponent_is_still_infinity_or_zero_and_units_stay() {
    assert_eq!(
        numbers("1e400 1e-400 3e999999999999 3e-999999999999 2e3px 5E-1% -4e2"),
        [
            f32::INFINITY,
            0.0,
            f32::INFINITY,
            0.0,
            2000.0,
            0.005,
            -400.0
        ]
    );
}
