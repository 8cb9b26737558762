//! Calls: of the script's functions, of request sinks, of known platform
//! functions with rules of their own, and of code the analysis does not see.

use super::*;

impl<'a> Walker<'a, '_> {
    /// The callee's values, the receiver's if it is a member, its name for
    /// messages, and the cost of reaching it.
    pub(super) fn callee(&mut self, callee: &'a Expression<'a>) -> (Vals, Vals, String, Cost) {
        let callee = match callee {
            Expression::ParenthesizedExpression(p) => &p.expression,
            other => other,
        };
        match callee.as_member_expression() {
            Some(m) => {
                let (obj, key, cost) = self.member_parts(m);
                let f = self.get(&obj, &key, m.span().start);
                (f, obj, key.shown().to_owned(), cost)
            }
            None => {
                let (f, cost) = self.expr(callee);
                let name = match callee {
                    Expression::Identifier(id) => id.name.as_str().to_owned(),
                    _ => "the function".to_owned(),
                };
                (f, Vals::unknown(), name, cost)
            }
        }
    }

    pub(super) fn call(
        &mut self,
        callee: &'a Expression<'a>,
        arguments: &'a [Argument<'a>],
        span: Span,
        new: bool,
    ) -> (Vals, Cost) {
        let (fvals, receiver, name, mut cost) = self.callee(callee);
        // Playwright's `evaluate` runs its function in the page.
        let in_page = fvals.iter().find_map(|v| match v {
            Value::Effect(Effect::RunsInPage(i)) => Some(*i),
            Value::Effect(Effect::RunsInEveryPage) => Some(0),
            _ => None,
        });
        // A function written in place as the argument of code the analysis
        // does not see gets unknown arguments: bind them before its body is
        // walked, which saves the walk a round.
        let escapes = !model::calls_back_once(&name)
            && fvals.iter().any(|v| match v {
                Value::Obj(o) => !(new && model::runs_executor(*o)),
                Value::Unknown
                | Value::Dyn
                | Value::Any
                | Value::Global
                | Value::Element(_)
                | Value::Plain
                | Value::Str(_) => true,
                _ => false,
            });
        let mut args = Vec::with_capacity(arguments.len());
        for (i, a) in arguments.iter().enumerate() {
            if escapes {
                let params = match a {
                    Argument::ArrowFunctionExpression(f) => Some(&f.params),
                    Argument::FunctionExpression(f) => Some(&f.params),
                    _ => None,
                };
                for p in params.iter().flat_map(|p| &p.items) {
                    self.bind(&p.pattern, &Vals::unknown(), false);
                }
            }
            let env = self.env;
            if in_page == Some(i) {
                self.env = Env::Page;
            }
            let (e, spread) = match a {
                Argument::SpreadElement(s) => (&s.argument, true),
                other => (other.to_expression(), false),
            };
            let (v, c) = self.expr(e);
            self.env = env;
            cost = cost.then(c);
            args.push(Arg {
                vals: v,
                spread,
                expr: Some(e),
            });
        }
        let site = CallSite {
            at: span.start,
            name,
            receiver,
            new,
        };
        let (v, c) = self.apply_all(&fvals, &args, &site);
        (v, cost.then(c))
    }

    /// Call one of `fvals`: the largest count among them.
    pub(super) fn apply_all(
        &mut self,
        fvals: &Vals,
        args: &[Arg<'a>],
        site: &CallSite,
    ) -> (Vals, Cost) {
        let mut out = Vals::none();
        let mut cost = Cost::Zero;
        for f in fvals.iter() {
            let (v, c) = self.apply(f, args, site, true);
            out.join(&v);
            cost = cost.or(c);
        }
        (out, cost)
    }

    pub(super) fn apply(
        &mut self,
        f: &Value,
        args: &[Arg<'a>],
        site: &CallSite,
        through: bool,
    ) -> (Vals, Cost) {
        let at = site.at;
        match f {
            Value::Sink(sink) => {
                let mut document = Cost::Zero;
                if let Some(first) = args.first() {
                    self.code_url(&first.vals, sink.label, at, sink.loads);
                    document = self.data_documents(&first.vals, sink.label, at);
                }
                let c = self.request(sink.label, at).then(document);
                let ret = match sink.returns {
                    model::Returns::Window => Value::Global,
                    model::Returns::Data if site.new => Value::Plain,
                    model::Returns::Data => Value::Unknown,
                };
                (Vals::of(ret), c)
            }
            Value::Opaque(label) => {
                self.opaque(label, at);
                (Vals::unknown(), Cost::Zero)
            }
            Value::Func(id) => self.call_func(*id, args, site, through),
            Value::Via(inner) => {
                let rest = args.get(1..).unwrap_or(&[]);
                let site = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver: Vals::unknown(),
                    new: false,
                };
                self.apply(inner, rest, &site, through)
            }
            Value::BindOf(inner) => {
                let how = How::at("is bound as an argument ({at})", at);
                let mut cost = Cost::Zero;
                for a in args.iter().skip(1) {
                    cost = cost.then(self.escape(&a.vals, at, &how, false));
                }
                (Vals::of((**inner).clone()), cost)
            }
            Value::Effect(e) => self.effect(*e, args, site),
            Value::Obj(o) if model::called(*o).is_some() => {
                let sink = model::called(*o).expect("checked");
                (Vals::unknown(), self.request(sink.label, at))
            }
            Value::Obj(o) if site.new && model::runs_executor(*o) => {
                let resolve = Vals::of(Value::Effect(Effect::Nothing));
                let (_, c) = self.call_once(args.first(), &resolve, site);
                (Vals::unknown(), c)
            }
            Value::Dyn | Value::Any => {
                self.opaque("a call of a function read through a computed name", at);
                let cost = self.escape_args(args, site);
                (Vals::unknown(), cost)
            }
            _ => {
                if !site.new && model::calls_back_once(&site.name) {
                    let receiver = site.receiver.clone();
                    let mut cost = Cost::Zero;
                    for a in args {
                        let (_, c) = self.call_once(Some(a), &receiver, site);
                        cost = cost.or(c);
                    }
                    return (receiver, cost);
                }
                // Text appended to a created script is its code.
                if model::inserts_children(&site.name)
                    && site
                        .receiver
                        .iter()
                        .any(|v| matches!(v, Value::Element(t) if model::text_is_code(t)))
                {
                    self.opaque("code added to a created script", at);
                }
                let cost = self.escape_args(args, site);
                (Vals::unknown(), cost)
            }
        }
    }

    /// Call the function in `arg` once, with `param` as its first argument.
    pub(super) fn call_once(
        &mut self,
        arg: Option<&Arg<'a>>,
        param: &Vals,
        site: &CallSite,
    ) -> (Vals, Cost) {
        let Some(arg) = arg else {
            return (Vals::unknown(), Cost::Zero);
        };
        let args = [Arg {
            vals: param.clone(),
            spread: false,
            expr: None,
        }];
        let mut out = Vals::none();
        let mut cost = Cost::Zero;
        let inner = CallSite {
            at: site.at,
            name: site.name.clone(),
            receiver: Vals::unknown(),
            new: false,
        };
        for f in arg.vals.iter() {
            let (v, c) = match f {
                // Page data passed where a function goes: the page's code.
                Value::Unknown
                | Value::Str(_)
                | Value::Plain
                | Value::Element(_)
                | Value::Global => (Vals::unknown(), Cost::Zero),
                f => self.apply(f, &args, &inner, false),
            };
            out.join(&v);
            cost = cost.or(c);
        }
        (out, cost)
    }

    pub(super) fn escape_args(&mut self, args: &[Arg<'a>], site: &CallSite) -> Cost {
        let reads_only = model::reads_only(&site.name);
        let how = How::new(
            "runs as a callback passed to `{name}` ({at})",
            &site.name,
            site.at,
        );
        let mut cost = Cost::Zero;
        for a in args {
            let at = a.expr.map_or(site.at, |e| e.span().start);
            cost = cost.then(self.escape(&a.vals, at, &how, reads_only));
            if let Some(e) = a.expr {
                cost = cost.then(self.css(e, at));
            }
        }
        cost
    }

    /// A string that, as CSS, loads something (`url(…)`, `@import`), handed to
    /// the page at `at`: a style, `setProperty`, `insertRule`.
    pub(super) fn css(&mut self, e: &'a Expression<'a>, at: u32) -> Cost {
        // Skip building the parts of code with no known text: one unknown part.
        if !expression::has_text(e) {
            return Cost::Zero;
        }
        let mut parts = Vec::new();
        self.shape(e, &mut parts);
        // A part the analysis cannot read stands in as a word: `url(${u})`
        // is a `url()` whatever `u` is.
        let text: String = parts
            .iter()
            .map(|p| match p {
                Part::Lit(s) => s.as_str(),
                Part::Hole => "_",
            })
            .collect();
        let loads = markup::css::read(&text).loads;
        self.counted("CSS that loads a `url(…)`", loads, false, at, "resources")
    }

    pub(super) fn effect(&mut self, e: Effect, args: &[Arg<'a>], site: &CallSite) -> (Vals, Cost) {
        let at = site.at;
        let unknown = Vals::unknown;
        match e {
            Effect::CreatesElement => {
                let tag = args
                    .first()
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase)
                    .unwrap_or_default();
                (Vals::of(Value::Element(tag)), Cost::Zero)
            }
            Effect::NewElement(tag, loads) => {
                let cost = match loads {
                    Some(sink) if !args.is_empty() => self.request(sink.label, at),
                    _ => Cost::Zero,
                };
                (Vals::of(Value::Element(tag.to_owned())), cost)
            }
            Effect::Markup(label, index) => {
                let mut cost = Cost::Zero;
                for a in args.iter().skip(index) {
                    cost = cost.then(self.markup(&a.vals, label, at));
                }
                if args.len() <= index {
                    self.opaque(&format!("{label} with markup the analysis cannot read"), at);
                }
                (unknown(), cost)
            }
            Effect::SetsAttribute { what, name_at } => {
                let name = args
                    .get(name_at)
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase);
                let cost = match name.as_deref().map(|n| (n, model::attribute(n))) {
                    Some((n, model::Attribute::Url)) => {
                        let what = format!("`{what}('{n}')`");
                        if let Some(v) = args.get(name_at + 1) {
                            self.code_url(&v.vals, &what, at, Loads::FromMadeUrls);
                        }
                        self.request(&what, at)
                    }
                    Some((n, model::Attribute::Markup)) => match args.get(name_at + 1) {
                        Some(a) => self.markup(&a.vals, &format!("`{what}('{n}')`"), at),
                        None => Cost::Zero,
                    },
                    Some((n, model::Attribute::Handler)) => {
                        self.opaque(
                            &format!("`{what}('{n}')`, an event handler written as a string"),
                            at,
                        );
                        Cost::Zero
                    }
                    Some((_, model::Attribute::Other)) => Cost::Zero,
                    None => {
                        self.opaque(
                            &format!("`{what}` with a name the analysis cannot read"),
                            at,
                        );
                        Cost::Zero
                    }
                };
                (unknown(), cost)
            }
            Effect::Timer(label) => {
                let mut cost = Cost::Zero;
                // A string is code to run; only a value known to be a
                // function is not one.
                if let Some(first) = args.first() {
                    let function = !first.spread
                        && first.vals.iter().all(|v| {
                            matches!(
                                v,
                                Value::Func(_)
                                    | Value::Sink(_)
                                    | Value::Via(_)
                                    | Value::BindOf(_)
                                    | Value::Effect(_)
                                    | Value::Opaque(_)
                            )
                        });
                    if !function {
                        self.opaque(&format!("{label} with what may be a string of code"), at);
                    }
                }
                let how = How::new("runs as a {name} callback ({at})", label, at);
                for a in args {
                    let a_at = a.expr.map_or(at, |e| e.span().start);
                    cost = cost.then(self.escape(&a.vals, a_at, &how, false));
                }
                (unknown(), cost)
            }
            Effect::LoadsEachArgument(sink, things) => {
                for a in args {
                    self.code_url(&a.vals, sink.label, at, sink.loads);
                }
                let cost = self.counted(
                    sink.label,
                    args.len(),
                    args.iter().any(|a| a.spread),
                    at,
                    things,
                );
                (unknown(), cost)
            }
            Effect::LoadsEachListed(sink, things) => {
                let n = match args.first().and_then(|a| a.expr) {
                    Some(Expression::ArrayExpression(a))
                        if !a
                            .elements
                            .iter()
                            .any(|e| matches!(e, ArrayExpressionElement::SpreadElement(_))) =>
                    {
                        Some(a.elements.len())
                    }
                    _ => None,
                };
                let cost = self.counted(sink.label, n.unwrap_or(2), n.is_none(), at, things);
                (unknown(), cost)
            }
            Effect::OpensWith(least, sink, otherwise) => {
                if args.len() >= least {
                    let ret = match sink.returns {
                        model::Returns::Window => Value::Global,
                        model::Returns::Data => Value::Unknown,
                    };
                    (Vals::of(ret), self.request(sink.label, at))
                } else {
                    (Vals::of(Value::Obj(otherwise)), Cost::Zero)
                }
            }
            Effect::CallsArgument { construct, how } => {
                let mut out = Vals::none();
                let mut cost = Cost::Zero;
                let inner = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver: unknown(),
                    new: construct,
                };
                if let Some(target) = args.first() {
                    for f in target.vals.iter() {
                        let (v, c) = self.apply(f, &[], &inner, true);
                        out.join(&v);
                        cost = cost.or(c);
                    }
                }
                let how = How::new(how, &site.name, at);
                for a in args.iter().skip(1) {
                    cost = cost.then(self.escape(&a.vals, at, &how, false));
                }
                (out, cost)
            }
            Effect::GetsMember => {
                let (Some(obj), Some(key)) = (args.first(), args.get(1)) else {
                    return (unknown(), Cost::Zero);
                };
                let key = match key.expr {
                    Some(e) => self.key_of(e, &key.vals),
                    None => Key::Unreadable,
                };
                (self.get(&obj.vals, &key, at), Cost::Zero)
            }
            Effect::RunsInPage(index) => {
                let cost = self.in_page(args.get(index), site);
                (unknown(), cost)
            }
            Effect::RunsInEveryPage => {
                let cost = self.in_page(args.first(), site);
                let cost = cost.repeated(|| {
                    How::at("runs in every page the context loads ({at})", at).render(self)
                });
                (unknown(), cost)
            }
            Effect::Returns(o) => (Vals::of(Value::Obj(o)), Cost::Zero),
            Effect::Nothing => (unknown(), Cost::Zero),
            Effect::SetsMember => {
                let (Some(obj), Some(key)) = (args.first(), args.get(1)) else {
                    return (unknown(), Cost::Zero);
                };
                let key = match key.expr {
                    Some(e) => self.key_of(e, &key.vals),
                    None => Key::Unreadable,
                };
                let vals = args.get(2).map_or_else(Vals::none, |a| a.vals.clone());
                (unknown(), self.set(&obj.vals, &key, &vals, at))
            }
            Effect::MakesBlobUrl => (Vals::of(Value::Str("blob:".to_owned())), Cost::Zero),
            Effect::Commands(&model::Commands { what, markup }) => {
                let command = args
                    .first()
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase);
                let cost = match command {
                    Some(c) => match markup.iter().find(|(name, _, _)| *name == c) {
                        Some((_, index, label)) => match args.get(*index) {
                            Some(html) => self.markup(&html.vals, label, at),
                            None => Cost::Zero,
                        },
                        None => Cost::Zero,
                    },
                    None => {
                        self.opaque(
                            &format!("{what} with a command the analysis cannot read"),
                            at,
                        );
                        Cost::Zero
                    }
                };
                (unknown(), cost)
            }
            Effect::ParsesMarkup(label) => {
                // Literal markup is parsed to be put in the page; markup read
                // from elsewhere (a fetched page) is parsed to be read.
                let cost = match args.first() {
                    Some(html) if html.vals.all_strings() => {
                        self.markup_into(&html.vals, label, at, markup::Into::Parsed)
                    }
                    _ => Cost::Zero,
                };
                (unknown(), cost)
            }
            Effect::CopiesProperties(how) => {
                let Some(target) = args.first() else {
                    return (unknown(), Cost::Zero);
                };
                let plain = target.vals.iter().all(|v| matches!(v, Value::Plain));
                let mut cost = Cost::Zero;
                if !plain {
                    for a in &args[1..] {
                        cost = cost.then(self.copied_keys(&target.vals, a, how, at));
                    }
                }
                (target.vals.clone(), cost)
            }
            Effect::SetsProperties(how) => {
                let cost = match args {
                    [one] if one.vals.all_strings() => Cost::Zero,
                    [one] => self.copied_keys(&Vals::unknown(), one, how, at),
                    [name, value, ..] => match name.vals.as_str() {
                        Some(n) => {
                            let key = Key::Name(Cow::Owned(n.to_owned()), false);
                            self.set(&Vals::unknown(), &key, &value.vals, at)
                        }
                        None => {
                            self.opaque(
                                &format!("`{}` with a name the analysis cannot read", site.name),
                                at,
                            );
                            Cost::Zero
                        }
                    },
                    [] => Cost::Zero,
                };
                (unknown(), cost)
            }
        }
    }

    /// Properties of the object `source` copied onto `target` by `how`: each
    /// is set as if assigned; an object the analysis cannot read is opaque.
    pub(super) fn copied_keys(
        &mut self,
        target: &Vals,
        source: &Arg<'a>,
        how: &str,
        at: u32,
    ) -> Cost {
        let Some(Expression::ObjectExpression(o)) = source.expr.filter(|_| !source.spread) else {
            self.opaque(
                &format!("{how} onto a page object from an object the analysis cannot read"),
                at,
            );
            return Cost::Zero;
        };
        let mut cost = Cost::Zero;
        for p in &o.properties {
            let ObjectPropertyKind::ObjectProperty(p) = p else {
                self.opaque(
                    &format!("{how} onto a page object from an object the analysis cannot read"),
                    at,
                );
                continue;
            };
            let key = match &p.key {
                PropertyKey::StaticIdentifier(id) => {
                    Key::Name(Cow::Borrowed(id.name.as_str()), true)
                }
                k => k
                    .as_expression()
                    .and_then(literal_key)
                    .map_or(Key::Unreadable, |n| Key::Name(n, true)),
            };
            let mut parts = Vec::new();
            self.shape(&p.value, &mut parts);
            let vals = string_value(&parts);
            cost = cost.then(self.set(target, &key, &vals, p.span.start));
        }
        cost
    }

    /// `what` at `at` starts `n` requests (many if `spread`).
    pub(super) fn counted(
        &mut self,
        what: &str,
        n: usize,
        spread: bool,
        at: u32,
        things: &str,
    ) -> Cost {
        if n == 0 && !spread {
            return Cost::Zero;
        }
        let one = self.request(what, at);
        if n == 1 && !spread {
            return one;
        }
        let amount = if spread {
            "a list of".to_owned()
        } else {
            n.to_string()
        };
        Cost::Many(format!(
            "{what} at {} loads {amount} {things}",
            self.pos(at)
        ))
    }

    /// Code passed to Playwright to run in the page, once.
    pub(super) fn in_page(&mut self, arg: Option<&Arg<'a>>, site: &CallSite) -> Cost {
        let at = site.at;
        let Some(arg) = arg else {
            return Cost::Zero;
        };
        let mut cost = Cost::Zero;
        for v in arg.vals.iter() {
            let c = match v {
                Value::Str(code) => self.nested(code, site),
                Value::Func(_) | Value::Via(_) | Value::BindOf(_) | Value::Sink(_) => {
                    self.call_once(Some(arg), &Vals::unknown(), site).1
                }
                _ => {
                    self.opaque(
                        &format!("`{}` of code the analysis cannot read", site.name),
                        at,
                    );
                    Cost::Zero
                }
            };
            cost = cost.or(c);
        }
        cost
    }

    /// A string of code run in the page, analysed on its own.
    pub(super) fn nested(&mut self, code: &str, site: &CallSite) -> Cost {
        let whose = format!(
            "in the code passed to `{}` at {}",
            site.name,
            self.pos(site.at)
        );
        self.nested_in(code, &whose, site.at, false)
    }

    /// A string of code at `at` analysed on its own; `whose` completes
    /// what is found in it ("in the code passed to `evaluate` at 1:5").
    /// A `handler`'s `this` is its element.
    pub(super) fn nested_in(&mut self, code: &str, whose: &str, at: u32, handler: bool) -> Cost {
        if self.depth >= MAX_NESTING {
            self.opaque(&format!("code nested too deep {whose}"), at);
            return Cost::Zero;
        }
        let analysis = if handler {
            crate::read::script::analyse_handler(code, self.depth + 1)
        } else {
            crate::read::script::analyse_nested(code, Env::Page, self.depth + 1)
        };
        match analysis {
            Err(failure) => {
                self.opaque(
                    &format!("code that does not parse ({}) {whose}", failure.message),
                    at,
                );
                Cost::Zero
            }
            Ok(inner) => {
                for f in &inner.opaque {
                    self.opaque(&format!("{} {whose}", f.what), at);
                }
                for u in inner.urls {
                    self.urls.insert((at, u), ());
                }
                for f in &inner.unknown_hosts {
                    let what = format!("{} {whose}", f.what);
                    let found = self.found(&what, at);
                    self.unknown_hosts.insert((at, what), found);
                }
                let mut first = None;
                for f in &inner.requests {
                    let c = self.request(&format!("{} {whose}", f.what), at);
                    first.get_or_insert(c);
                }
                match inner.count {
                    Count::Zero => Cost::Zero,
                    Count::One => first.unwrap_or(Cost::Zero),
                    Count::Many { why } => Cost::Many(format!("{whose}, {why}")),
                }
            }
        }
    }
}
