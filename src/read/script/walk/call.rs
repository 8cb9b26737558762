//! Calls: of the script's functions, of request sinks, of known platform
//! functions with rules of their own, and of code the analysis does not see.

use super::*;

impl<'a> Walker<'a, '_> {
    /// The callee's values, the receiver's if it is a member, its name for
    /// messages, and the cost of reaching it.
    pub(super) fn callee(
        &mut self,
        callee: &'a Expression<'a>,
    ) -> (Vals, Vals, Cow<'a, str>, Cost) {
        let callee = match callee {
            Expression::ParenthesizedExpression(p) => &p.expression,
            other => other,
        };
        match callee.as_member_expression() {
            Some(m) => {
                let (obj, key, cost) = self.member_parts(m);
                let f = self.get(&obj, &key, m.span().start);
                (f, obj, key.into_shown(), cost)
            }
            None => {
                let (f, cost) = self.expr(callee);
                let name = match callee {
                    Expression::Identifier(id) => Cow::Borrowed(id.name.as_str()),
                    _ => Cow::Borrowed("the function"),
                };
                // A plain call, in sloppy mode: `this` is the global object.
                (f, Vals::of(Value::Global), name, cost)
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
            Value::Effect(Effect::PollsInPage(i)) => Some(*i),
            _ => None,
        });
        // A function written in place as the argument of code the analysis
        // does not see gets unknown arguments: bind them before its body is
        // walked, which saves the walk a round.
        let escapes = !model::calls_back_once(&name)
            && fvals.iter().any(|v| match v {
                Value::Obj(o) => !(new && model::runs_executor(*o)),
                Value::Unknown
                | Value::Unlisted
                | Value::Dyn
                | Value::Any
                | Value::Global
                | Value::Element(_)
                | Value::Plain
                | Value::Str(_) => true,
                _ => false,
            });
        // `list.forEach(a => …)` of elements of one tag: the callback is
        // given them, not page data.
        let each = each_element(&name, &receiver);
        // `fs.forEach(f => f())` of `[el.loadMore]`, `window.handlers.map(…)`:
        // the callback is given the items, among them a page's method.
        let page_items = receiver
            .iter()
            .any(|v| matches!(v, Value::Unlisted | Value::Plain))
            && model::calls_back(&name)
            && self.may_hold_page_functions(&receiver);
        let mut args = self.arg_lists.pop().unwrap_or_default();
        for (i, a) in arguments.iter().enumerate() {
            // Bound before the body is walked, as below: no second round.
            if let (
                0,
                Some(tag),
                Argument::ArrowFunctionExpression(_) | Argument::FunctionExpression(_),
            ) = (i, &each, a)
            {
                let params = match a {
                    Argument::ArrowFunctionExpression(f) => &f.params,
                    Argument::FunctionExpression(f) => &f.params,
                    _ => unreachable!("matched above"),
                };
                for (n, p) in params.items.iter().enumerate() {
                    let vals = if n == 0 {
                        Vals::of(Value::Element(tag.clone()))
                    } else {
                        Vals::unknown()
                    };
                    self.bind(&p.pattern, &vals, false);
                }
            } else if escapes || page_items {
                let params = match a {
                    Argument::ArrowFunctionExpression(f) => Some(&f.params),
                    Argument::FunctionExpression(f) => {
                        if escapes {
                            self.join_this(f.span.start, &Vals::unknown());
                        }
                        Some(&f.params)
                    }
                    _ => None,
                };
                // The item is the first argument; a reduction's, the second.
                let item = usize::from(model::reduces(&name));
                for (n, p) in params.iter().flat_map(|p| &p.items).enumerate() {
                    let mut vals = Vals::unknown();
                    if page_items && n == item {
                        vals.add(Value::Unlisted);
                    } else if !escapes {
                        continue;
                    }
                    self.bind(&p.pattern, &vals, false);
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
        args.clear();
        self.arg_lists.push(args);
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
            out.join_owned(v);
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
                let mut c = self.request(sink.label, at);
                if let (true, Cost::One(run)) = (sink.input, &mut c) {
                    run.input = true;
                }
                let c = c.then(document);
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
                // `f.call(x, …)`: `this` is `x`.
                let receiver = args
                    .first()
                    .map_or_else(|| Vals::of(Value::Global), |a| a.vals.clone());
                let site = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver,
                    new: false,
                };
                self.apply(inner, rest, &site, through)
            }
            Value::BindOf(inner) => {
                if let (Value::Func(id), Some(this)) = (&**inner, args.first()) {
                    self.join_this(*id, &this.vals);
                }
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
            Value::Obj(o) if !site.new && model::called_effect(*o).is_some() => {
                let e = model::called_effect(*o).expect("checked");
                self.effect(e, args, site)
            }
            Value::Obj(o) if site.new && model::runs_executor(*o) => {
                let resolve = Vals::of(Value::Effect(Effect::Nothing));
                let (_, c) = self.call_once(args.first(), &resolve, site);
                (Vals::unknown(), c)
            }
            // A method the model does not know, of page data: policy (1).
            // `m.bind(x)` of such a method gives it back, bound.
            Value::Unlisted
                if !site.new
                    && model::function_member(&site.name) == Some(model::FnMember::Bind) =>
            {
                let cost = self.escape_args(args, site);
                (Vals::of(Value::Unlisted), cost)
            }
            Value::Unlisted => {
                let what = if model::page_verb(&site.name) {
                    format!(
                        "a call of `{}` on an object of the page's own, which may fetch",
                        site.name
                    )
                } else {
                    format!(
                        "a call of `{}`, a function the model does not know",
                        site.name
                    )
                };
                let c = self.request(&what, at);
                self.inserted_nodes(args, site);
                let cost = self.escape_args(args, site);
                (Vals::unknown(), c.then(cost))
            }
            Value::Dyn | Value::Any => {
                self.opaque("a call of a function read through a computed name", at);
                let cost = self.escape_args(args, site);
                (Vals::unknown(), cost)
            }
            // Constructing the script's own class.
            Value::Plain if site.new => {
                let cost = self.escape_args(args, site);
                (Vals::of(Value::Plain), cost)
            }
            _ => {
                // `fs.push(el.loadMore)`, `m.set(k, el.loadMore)`: a page's
                // method handed on, perhaps to be kept and called back.
                if site.receiver.iter().any(|v| matches!(v, Value::Plain)) {
                    for a in args {
                        self.note_stored(None, &a.vals);
                    }
                }
                // `o.m.call(x)`: `m` may be a method of the script's.
                if matches!(f, Value::Unknown) && model::function_member(&site.name).is_some() {
                    let this = args
                        .first()
                        .map_or_else(|| site.receiver.clone(), |a| a.vals.clone());
                    self.join_lost_this(&this);
                }
                if !site.new
                    && model::calls_back_once(&site.name)
                    && self.promise_like(&site.receiver)
                {
                    let receiver = site.receiver.clone();
                    let mut cost = Cost::Zero;
                    for a in args {
                        let (_, c) = self.call_once(Some(a), &receiver, site);
                        cost = cost.or(c);
                    }
                    return (receiver, cost);
                }
                self.text_of_created_script(site);
                self.inserted_nodes(args, site);
                let cost = match (each_element(&site.name, &site.receiver), args.split_first()) {
                    (Some(tag), Some((first, rest))) => {
                        let how = How::new(
                            "runs as a callback passed to `{name}` ({at})",
                            &site.name,
                            site.at,
                        );
                        let element = Vals::of(Value::Element(tag));
                        let (_, once) = self.call_once(Some(first), &element, site);
                        let each = once.repeated(|| how.render(self));
                        each.then(self.escape_args(rest, site))
                    }
                    _ => self.escape_args(args, site),
                };
                // A method of an inert document's node gives more of it; a
                // list of elements' `filter`, `slice`, and `Array.from` of
                // one, elements of the same tag.
                let out = match f {
                    Value::Parsed(unread) => Value::Parsed(*unread),
                    // `new Map()`: a collection of the script's own.
                    _ if site.new && model::makes_collection(&site.name) => Value::Plain,
                    _ => match kept_elements(site, args) {
                        Some(tag) => Value::Element(tag),
                        None => Value::Unknown,
                    },
                };
                let mut out = Vals::of(out);
                // `Object.values(o)`, `fs.slice()`, `fs.at(0)` of the
                // script's data holding a page's method: may be or hold it.
                let plain = |vals: &Vals| vals.iter().any(|v| matches!(v, Value::Plain));
                if (plain(&site.receiver) || args.iter().any(|a| plain(&a.vals)))
                    && model::gives_items(&site.name)
                    && self.stored_any()
                {
                    out.add(Value::Unlisted);
                }
                (out, cost)
            }
        }
    }

    /// One argument of jQuery's insertion (`append(x)`), of values `vals`
    /// written as `expr`: markup when a string, each element of an array
    /// literal, what a function returns. Markup built at run time is
    /// opaque, and so, where `strict` (`html(x)`), is anything that is not
    /// a node or a callback.
    pub(super) fn content(
        &mut self,
        vals: &Vals,
        expr: Option<&'a Expression<'a>>,
        label: &str,
        strict: bool,
        at: u32,
    ) -> Cost {
        let markup = vals
            .iter()
            .any(|v| matches!(v, Value::Str(s) if s.contains('<')));
        if vals.all_strings() {
            return if markup {
                self.markup(vals, label, at)
            } else {
                Cost::Zero
            };
        }
        if let Some(Expression::ArrayExpression(array)) = expr {
            let mut cost = Cost::Zero;
            for el in &array.elements {
                if let Some(e) = el.as_expression() {
                    let v = self.text_of(e);
                    cost = cost.then(self.content(&v, Some(e), label, strict, at));
                }
            }
            return cost;
        }
        let mut cost = Cost::Zero;
        let mut unread = false;
        for v in vals.iter() {
            match v {
                Value::Func(id) => {
                    let returns = self
                        .summary(*id)
                        .map(|s| s.returns.clone())
                        .unwrap_or_default();
                    if returns.all_strings() {
                        cost = cost.or(self.markup(&returns, label, at));
                    } else if strict && returns.iter().next().is_some() {
                        unread = true;
                    }
                }
                Value::Unknown | Value::Unlisted | Value::Str(_) | Value::Any | Value::Dyn => {
                    unread |= strict
                }
                _ => {}
            }
        }
        let built = expr.is_some_and(|e| {
            let mut parts = Vec::new();
            self.shape(e, &mut parts);
            parts
                .iter()
                .any(|p| matches!(p, Part::Lit(s) if s.contains('<')))
        });
        if markup || built || unread {
            self.opaque(&format!("{label} with markup the analysis cannot read"), at);
        }
        cost
    }

    /// The text of `e` as far as it is known, without walking it.
    pub(super) fn text_of(&self, e: &'a Expression<'a>) -> Vals {
        let mut parts = Vec::new();
        self.shape(e, &mut parts);
        string_value(&parts)
    }

    /// Text added to a created script (`append`, `insertAdjacentText`) is
    /// its code.
    pub(super) fn text_of_created_script(&mut self, site: &CallSite) {
        if site
            .receiver
            .iter()
            .any(|v| matches!(v, Value::Element(t) if model::text_is_code(t)))
            && model::inserts_children(&site.name)
        {
            self.opaque("code added to a created script", site.at);
        }
    }

    /// Nodes put into the page by `site` (`append`, `adoptNode`): those of
    /// an inert document whose markup the analysis cannot read start
    /// loading what it names, and so, once the script has parsed such a
    /// document, may any node it cannot name.
    pub(super) fn inserted_nodes(&mut self, args: &[Arg<'a>], site: &CallSite) {
        // The cheap test first: most calls hand over nothing of the kind.
        let (mut parsed, mut unnamed) = (false, false);
        for a in args {
            for v in a.vals.iter() {
                match v {
                    Value::Parsed(u) => parsed |= *u,
                    Value::Unknown | Value::Unlisted | Value::Any | Value::Dyn => unnamed = true,
                    _ => {}
                }
            }
        }
        if !(parsed || unnamed) || !model::inserts_nodes(&site.name) {
            return;
        }
        let inert = parsed || self.unread_document();
        if inert {
            self.opaque(
                &format!(
                    "`{}` of nodes from a `DOMParser` document whose markup the analysis cannot read",
                    site.name
                ),
                site.at,
            );
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
        // A promise's callback is called plainly.
        let inner = CallSite {
            at: site.at,
            name: site.name.clone(),
            receiver: Vals::of(Value::Global),
            new: false,
        };
        for f in arg.vals.iter() {
            let (v, c) = match f {
                // Page data passed where a function goes: the page's code.
                Value::Unknown
                | Value::Str(_)
                | Value::Plain
                | Value::Element(_)
                | Value::Attr(_)
                | Value::Parsed(_)
                | Value::Global => (Vals::unknown(), Cost::Zero),
                f => self.apply(f, &args, &inner, false),
            };
            out.join_owned(v);
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
        let calls_back = model::calls_back(&site.name);
        for a in args {
            let at = a.expr.map_or(site.at, |e| e.span().start);
            if calls_back {
                cost = cost.then(self.unlisted_callback(&a.vals, at, &how));
            }
            cost = cost.then(self.escape(&a.vals, at, &how, reads_only));
            if let Some(e) = a.expr {
                cost = cost.then(self.css(e, at));
            }
        }
        cost
    }

    /// A function of the page the model does not know (`el.foo`, a page's
    /// global), handed as a callback at `at` to code that calls it: a
    /// possible request each time it is called.
    pub(super) fn unlisted_callback(&mut self, vals: &Vals, at: u32, how: &How<'_>) -> Cost {
        if !vals.iter().any(|v| matches!(v, Value::Unlisted)) {
            return Cost::Zero;
        }
        let once = self.request(
            "a function the model does not know, passed as a callback",
            at,
        );
        // A promise calls each of its callbacks once.
        if model::calls_back_once(how.name) {
            once
        } else {
            once.repeated(|| how.render(self))
        }
    }

    /// A string that, as CSS, loads something (`url(…)`, `@import`), handed to
    /// the page at `at`: a style, `setProperty`, `insertRule`.
    pub(super) fn css(&mut self, e: &'a Expression<'a>, at: u32) -> Cost {
        // Skip building the parts of code with no known text: one unknown part.
        if !expression::has_text(e) {
            return Cost::Zero;
        }
        // Nothing loads without a `(` (`url(`, `src(`, `image-set(`) or an
        // `@` (`@import`) written in the text, nor can an escape spell one
        // as a token, and an unknown part stands in as `_`: most text
        // handed to the page (`querySelector('tr')`) is turned away here,
        // before its parts are built.
        if !self.text_may_load_css(e) {
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
        // A namespace is written as a URL but names no site.
        if let Some(ns) = model::namespace_at(e).and_then(|i| args.get(i))
            && let Some(expr) = ns.expr
        {
            let start = expr.span().start;
            self.urls.retain(|(offset, _), _| *offset != start);
        }
        match e {
            Effect::CreatesElement(index) => {
                // `svg:script` is a `script`.
                let tag = args
                    .get(index)
                    .and_then(|a| a.vals.as_str())
                    .map(|t| t.rsplit(':').next().unwrap_or(t).to_ascii_lowercase())
                    .unwrap_or_default();
                (Vals::of(Value::Element(tag)), Cost::Zero)
            }
            Effect::CreatesAttribute(index) => {
                let name = args
                    .get(index)
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase)
                    .unwrap_or_default();
                (Vals::of(Value::Attr(name)), Cost::Zero)
            }
            Effect::SetsAttributeNode(what) => {
                let mut cost = Cost::Zero;
                for v in args.first().map(|a| a.vals.iter()).into_iter().flatten() {
                    let c = match v {
                        Value::Attr(n) => {
                            let name = (!n.is_empty()).then_some(n.as_str());
                            self.set_attribute(what, name, &Vals::unknown(), at)
                        }
                        _ => {
                            self.opaque(
                                &format!("{what} of an attribute the analysis cannot read"),
                                at,
                            );
                            Cost::Zero
                        }
                    };
                    cost = cost.or(c);
                }
                (unknown(), cost)
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
                    let saved = std::mem::replace(
                        &mut self.markup_expr,
                        a.expr.filter(|_| !a.spread).map(|e| (at, e)),
                    );
                    cost = cost.then(self.markup(&a.vals, label, at));
                    self.markup_expr = saved;
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
                let value = args
                    .get(name_at + 1)
                    .map_or_else(Vals::none, |a| a.vals.clone());
                let what = format!("`{what}`");
                (
                    unknown(),
                    self.set_attribute(&what, name.as_deref(), &value, at),
                )
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
                    cost = cost.then(self.unlisted_callback(&a.vals, a_at, &how));
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
            Effect::LoadsEachListed(&model::Listed {
                sink,
                things,
                at: index,
            }) => {
                let listed = args.get(index);
                let n = match listed.and_then(|a| a.expr) {
                    Some(Expression::ArrayExpression(a))
                        if !a
                            .elements
                            .iter()
                            .any(|e| matches!(e, ArrayExpressionElement::SpreadElement(_))) =>
                    {
                        Some(a.elements.len())
                    }
                    // One request, as a URL.
                    _ if listed.is_some_and(|a| !a.spread && a.vals.all_strings()) => Some(1),
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
                // `Reflect.apply(f, thisArg, args)`.
                let inner = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver: args
                        .get(1)
                        .filter(|_| !construct)
                        .map_or_else(|| Vals::of(Value::Global), |a| a.vals.clone()),
                    new: construct,
                };
                if let Some(target) = args.first() {
                    for f in target.vals.iter() {
                        let (v, c) = self.apply(f, &[], &inner, true);
                        out.join_owned(v);
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
            Effect::PollsInPage(index) => {
                let cost = self.in_page(args.get(index), site);
                let cost = cost.repeated(|| {
                    How::at(
                        "is polled in the page until it gives a true value ({at})",
                        at,
                    )
                    .render(self)
                });
                (unknown(), cost)
            }
            Effect::Devtools(sink) => (unknown(), self.devtools(args, site, sink)),
            Effect::Returns(o) => (Vals::of(Value::Obj(o)), Cost::Zero),
            Effect::Selects(index) => {
                let tag = args
                    .get(index)
                    .and_then(|a| a.vals.as_str())
                    .and_then(model::selected_tag);
                let cost = self.escape_args(args, site);
                (Vals::of(tag.map_or(Value::Unknown, Value::Element)), cost)
            }
            Effect::Nothing => (unknown(), Cost::Zero),
            Effect::Dispatches(sink) => {
                let inert = match args.first().and_then(|a| a.expr) {
                    Some(Expression::NewExpression(n)) => match (&n.callee, n.arguments.first()) {
                        (Expression::Identifier(c), Some(Argument::StringLiteral(kind))) => {
                            self.lookup(c.name.as_str()).is_none()
                                && model::inert_event(Some(c.name.as_str()), kind.value.as_str())
                        }
                        _ => false,
                    },
                    Some(Expression::StringLiteral(kind)) => {
                        model::inert_event(None, kind.value.as_str())
                    }
                    _ => false,
                };
                let cost = if inert {
                    Cost::Zero
                } else {
                    self.request(sink.label, at)
                };
                (unknown(), cost)
            }
            Effect::DescribesProperty(what) => {
                let of_global = args
                    .first()
                    .is_some_and(|a| a.vals.iter().any(|v| *v == Value::Global));
                let name = args.get(1).and_then(|a| a.vals.as_str());
                if of_global || !name.is_some_and(model::inert_accessor) {
                    self.opaque(what, at);
                }
                (unknown(), Cost::Zero)
            }
            Effect::Accumulates => {
                let initial = args.get(1).map_or_else(unknown, |a| a.vals.clone());
                let how = How::new(
                    "runs as a callback passed to `{name}` ({at})",
                    &site.name,
                    at,
                );
                let mut cost = Cost::Zero;
                for (i, a) in args.iter().enumerate() {
                    let a_at = a.expr.map_or(at, |e| e.span().start);
                    let only = a.vals.iter().next().filter(|_| a.vals.iter().count() == 1);
                    cost = cost.then(match only {
                        Some(Value::Func(id)) if i == 0 && !a.spread => {
                            let id = *id;
                            self.accumulate(id, &initial, &how)
                        }
                        _ => self.escape(&a.vals, a_at, &how, false),
                    });
                }
                (unknown(), cost)
            }
            Effect::CssThen(index, o) => {
                let cost = match args.get(index).and_then(|a| a.expr) {
                    Some(e) => self.css(e, at),
                    None => Cost::Zero,
                };
                (Vals::of(Value::Obj(o)), cost)
            }
            Effect::WalksNodes(o) => {
                let text_only = match args.get(1).and_then(|a| a.expr) {
                    Some(Expression::StaticMemberExpression(m)) => {
                        model::text_only_filter(Some(m.property.name.as_str()), None)
                    }
                    Some(Expression::NumericLiteral(n)) => {
                        model::text_only_filter(None, Some(n.value))
                    }
                    _ => false,
                };
                (
                    Vals::of(if text_only {
                        Value::Obj(o)
                    } else {
                        Value::Unknown
                    }),
                    Cost::Zero,
                )
            }
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
                // from elsewhere (a fetched page) is parsed to be read, and
                // its document is inert until its nodes are put in the page.
                let (cost, unread) = match args.first() {
                    Some(html) if html.vals.all_strings() => (
                        self.markup_into(&html.vals, label, at, markup::Into::Parsed),
                        false,
                    ),
                    _ => (Cost::Zero, true),
                };
                if unread {
                    self.note_unread_document();
                }
                (Vals::of(Value::Parsed(unread)), cost)
            }
            Effect::InsertsContent(label, strict) => {
                self.text_of_created_script(site);
                self.inserted_nodes(args, site);
                let mut cost = self.escape_args(args, site);
                for a in args {
                    // `$('<img>', { src: u, html: '…' })`: the new element's
                    // properties and content.
                    if let Some(e @ Expression::ObjectExpression(_)) = a.expr {
                        cost = cost.then(self.copied_keys(&unknown(), a, label, at));
                        if let Some(html) = property_value(e, "html") {
                            let v = self.text_of(html);
                            cost = cost.then(self.content(&v, Some(html), label, true, at));
                        }
                        continue;
                    }
                    cost = cost.then(self.content(&a.vals, a.expr, label, strict, at));
                }
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
            Effect::Fulfills => (unknown(), self.fulfilled(args, at)),
            Effect::SetsStyle => {
                let cost = match args {
                    [name, value, ..] => {
                        self.style_value(name.vals.as_str(), value, &site.name, at)
                    }
                    [
                        Arg {
                            expr: Some(Expression::ObjectExpression(o)),
                            spread: false,
                            ..
                        },
                    ] => {
                        let mut cost = Cost::Zero;
                        for p in &o.properties {
                            let ObjectPropertyKind::ObjectProperty(p) = p else {
                                self.opaque("`css` of properties the analysis cannot read", at);
                                continue;
                            };
                            let name = p.key.static_name();
                            let value = Arg {
                                vals: self.text_of(&p.value),
                                spread: false,
                                expr: Some(&p.value),
                            };
                            cost = cost.then(self.style_value(
                                name.as_deref(),
                                &value,
                                &site.name,
                                at,
                            ));
                        }
                        cost
                    }
                    // A getter: `css('color')`, `css(['color', 'width'])`.
                    [one]
                        if matches!(one.expr, Some(Expression::ArrayExpression(_)))
                            || one
                                .vals
                                .iter()
                                .all(|v| matches!(v, Value::Str(_) | Value::Unknown)) =>
                    {
                        Cost::Zero
                    }
                    [_] => {
                        self.opaque("`css` of properties the analysis cannot read", at);
                        Cost::Zero
                    }
                    [] => Cost::Zero,
                };
                (unknown(), cost)
            }
            Effect::Text(op) => {
                let cost = self.escape_args(args, site);
                (self.made_text(op, args, site), cost)
            }
            Effect::SetsProperties(how) => {
                let cost = match args {
                    [one] if one.vals.all_strings() => Cost::Zero,
                    [one] => self.copied_keys(&Vals::unknown(), one, how, at),
                    [name, value, ..] => match name.vals.as_str() {
                        Some(n) => {
                            let key = Key::Name(Cow::Owned(n.to_owned()), false);
                            let c = self.set(&Vals::unknown(), &key, &value.vals, at);
                            self.per_element(c, value.expr, &value.vals, &site.name, at)
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

    /// The text `op` makes at `site` from its receiver and `args`: folded
    /// where they are known, and checked for a URL as a concatenation is;
    /// else page data, noted as text that may be any URL.
    fn made_text(&mut self, op: model::TextOp, args: &[Arg<'a>], site: &CallSite) -> Vals {
        let at = site.at;
        // `f.apply(x, [a, b])` and `f(...[a, b])`: the array's elements.
        let mut given = Vec::with_capacity(args.len());
        for a in args {
            match a.expr {
                Some(Expression::ArrayExpression(array)) if a.spread || site.name == "apply" => {
                    for el in &array.elements {
                        given.push(match el.as_expression() {
                            Some(e) => self.given(e, &self.text_of(e)),
                            None => model::Given::Other,
                        });
                    }
                }
                _ if a.spread => given.push(model::Given::Other),
                Some(e) => given.push(self.given(e, &a.vals)),
                None => given.push(match a.vals.as_str() {
                    Some(s) => model::Given::Text(s.to_owned()),
                    None => model::Given::Other,
                }),
            }
        }
        let span = Span::new(at, at);
        let made = |this: &mut Self, what: String| {
            let found = this.found(&what, at);
            this.made_text.insert((at, what), found);
            Vals::unknown()
        };
        match op {
            model::TextOp::Concat => {
                // An array's `concat` makes an array; a string's, text.
                let receiver = site.receiver.as_str();
                if receiver.is_none() && site.name == "concat" {
                    return Vals::unknown();
                }
                let mut parts = Vec::new();
                match receiver {
                    Some(s) => push_lit(&mut parts, s),
                    None => parts.push(Part::Hole),
                }
                for g in &given {
                    match g {
                        model::Given::Text(s) => push_lit(&mut parts, s),
                        model::Given::Number(n) => push_lit(&mut parts, &n.to_string()),
                        model::Given::Other => parts.push(Part::Hole),
                    }
                }
                self.note_string(&parts, span);
                self.fold(at, string_value(&parts))
            }
            model::TextOp::Decodes(how) => match model::decode(how, &given) {
                Some(text) => {
                    self.note_string(&[Part::Lit(text.clone())], span);
                    self.note_embedded(&text, at);
                    self.fold(at, Vals::of(Value::Str(text)))
                }
                None if given.iter().all(|g| !matches!(g, model::Given::Other)) => Vals::unknown(),
                None => made(
                    self,
                    format!("`{}` of text the analysis cannot read", site.name),
                ),
            },
            model::TextOp::Method => {
                let mut out = Vals::none();
                for v in site.receiver.iter() {
                    let folded = match v {
                        Value::Str(s) => model::fold_method(s, &site.name, &given),
                        _ => None,
                    };
                    let Some(text) = folded else {
                        return made(
                            self,
                            format!(
                                "`{}` of the script's text, which the analysis does not fold",
                                site.name
                            ),
                        );
                    };
                    self.note_string(&[Part::Lit(text.clone())], span);
                    out.add(Value::Str(text));
                }
                self.fold(at, out)
            }
        }
    }

    /// Keep the text a call at `at` made, when it is one known string,
    /// for the concatenation around it.
    fn fold(&mut self, at: u32, vals: Vals) -> Vals {
        if let Some(s) = vals.as_str() {
            self.folded.insert(at, s.to_owned());
        }
        vals
    }

    /// Playwright's `route.fulfill(options)` at `at`: a body of a markup type
    /// (or of no type, which the browser sniffs) is a document, read as
    /// `setContent`'s markup is; one the analysis cannot read (a variable,
    /// a file) is a possible request. JSON, text and the fetched response
    /// passed on load nothing of the script's.
    fn fulfilled(&mut self, args: &[Arg<'a>], at: u32) -> Cost {
        const LABEL: &str = "the document `route.fulfill` answers with";
        let options = match args.first() {
            None => return Cost::Zero,
            Some(Arg {
                expr: Some(e @ Expression::ObjectExpression(_)),
                spread: false,
                ..
            }) => e,
            Some(_) => {
                return self.request(
                    &format!("{LABEL}, whose options the analysis cannot read"),
                    at,
                );
            }
        };
        if property_value(options, "json").is_some() {
            return Cost::Zero;
        }
        let text = |this: &Self, e: &'a Expression<'a>| this.text_of(e).as_str().map(str::to_owned);
        let header = property_value(options, "headers").and_then(|h| {
            property_value(h, "content-type").or_else(|| property_value(h, "Content-Type"))
        });
        let kind = property_value(options, "contentType").or(header);
        let body = property_value(options, "body");
        let path = property_value(options, "path");
        let markup = match kind {
            Some(k) => text(self, k)
                .is_none_or(|t| markup::is_markup(t.split(';').next().unwrap_or("").trim())),
            None => match path {
                Some(p) => text(self, p).is_none_or(|p| model::markup_file(&p)),
                // No type: the browser sniffs the body, which may be markup.
                None => body.is_some(),
            },
        };
        if !markup {
            return Cost::Zero;
        }
        match (body, path) {
            (Some(b), _) => match text(self, b) {
                Some(html) => self.markup(&Vals::of(Value::Str(html)), LABEL, at),
                None => self.request(
                    &format!("{LABEL}, whose markup the analysis cannot read"),
                    at,
                ),
            },
            (None, Some(_)) => {
                self.request(&format!("{LABEL}, a file the analysis cannot read"), at)
            }
            // Empty, or the fetched response passed on.
            (None, None) => Cost::Zero,
        }
    }

    /// jQuery's `css(name, value)` at `at`: the CSS's `url(…)`s, once for
    /// each matched element when the value is a function; a property that
    /// may hold a URL given a value the analysis cannot read, one.
    fn style_value(&mut self, name: Option<&str>, value: &Arg<'a>, how: &str, at: u32) -> Cost {
        let loads = name.is_none_or(model::style_may_load);
        let c = match value.expr {
            Some(e) if !value.vals.iter().any(|v| matches!(v, Value::Func(_))) => self.css(e, at),
            _ => Cost::Zero,
        };
        let function = self.may_be_function(value.expr, &value.vals);
        let c = if function && loads && c == Cost::Zero {
            self.request(&format!("`{how}` of a style that may load a `url(…)`"), at)
        } else {
            c
        };
        self.per_element(c, value.expr, &value.vals, how, at)
    }

    /// What setting a value on each element jQuery matched costs: `cost`
    /// once, when the value is one (browsers fetch one URL once for all of
    /// them, measured in Chromium), or once per element when it is a
    /// function, which jQuery calls for each and which may give each a URL
    /// of its own.
    fn per_element(
        &mut self,
        cost: Cost,
        expr: Option<&'a Expression<'a>>,
        vals: &Vals,
        how: &str,
        at: u32,
    ) -> Cost {
        if !self.may_be_function(expr, vals) {
            return cost;
        }
        cost.repeated(|| {
            format!(
                "for each element `{}` at {} matches: its value is a function, called once for each, which may give each a URL of its own (set one URL, or set it on one element)",
                how.trim_matches('`'),
                self.pos(at)
            )
        })
    }

    /// Whether a value jQuery is handed may be a function: one of the
    /// script's, or a global the script does not declare (`fn`,
    /// `window.f`), which the page or an earlier call may have made one.
    fn may_be_function(&self, expr: Option<&'a Expression<'a>>, vals: &Vals) -> bool {
        if vals.iter().any(|v| {
            matches!(
                v,
                Value::Func(_) | Value::Via(_) | Value::BindOf(_) | Value::Dyn | Value::Any
            )
        }) {
            return true;
        }
        match expr {
            Some(Expression::Identifier(id)) => self.lookup(id.name.as_str()).is_none(),
            Some(Expression::StaticMemberExpression(m)) => {
                matches!(&m.object, Expression::Identifier(o) if self.lookup(o.name.as_str()).is_none() && matches!(o.name.as_str(), "window" | "globalThis" | "self"))
            }
            Some(Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)) => {
                true
            }
            // `f.bind(…)` gives a function.
            Some(Expression::CallExpression(c)) => {
                c.callee
                    .as_member_expression()
                    .and_then(MemberExpression::static_property_name)
                    .and_then(model::function_member)
                    == Some(model::FnMember::Bind)
            }
            _ => false,
        }
    }

    /// An argument written as `e` with values `vals`, for folding text.
    fn given(&self, e: &'a Expression<'a>, vals: &Vals) -> model::Given {
        match e {
            Expression::NumericLiteral(n) => model::Given::Number(n.value),
            Expression::UnaryExpression(u)
                if u.operator == oxc_syntax::operator::UnaryOperator::UnaryNegation
                    && matches!(&u.argument, Expression::NumericLiteral(_)) =>
            {
                match &u.argument {
                    Expression::NumericLiteral(n) => model::Given::Number(-n.value),
                    _ => model::Given::Other,
                }
            }
            _ => match vals.as_str() {
                Some(s) => model::Given::Text(s.to_owned()),
                None => model::Given::Other,
            },
        }
    }

    /// The attribute `name` (lower case; `None`: not known) set to `value`
    /// by `what` (`` `setAttribute` ``) at `at`.
    pub(super) fn set_attribute(
        &mut self,
        what: &str,
        name: Option<&str>,
        value: &Vals,
        at: u32,
    ) -> Cost {
        let Some(n) = name else {
            self.opaque(&format!("{what} with a name the analysis cannot read"), at);
            return Cost::Zero;
        };
        let named = format!("{what} of `{n}`");
        match model::attribute(n) {
            model::Attribute::Url => {
                self.code_url(value, &named, at, Loads::FromMadeUrls);
                self.request(&named, at)
            }
            model::Attribute::Markup => self.markup(value, &named, at),
            model::Attribute::Handler => {
                self.opaque(
                    &format!("{named}, an event handler written as a string"),
                    at,
                );
                Cost::Zero
            }
            model::Attribute::Style => {
                let loads = value
                    .iter()
                    .map(|v| match v {
                        Value::Str(s) => markup::css::read(s).loads,
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0);
                self.counted(
                    &format!("{named}, CSS that loads a `url(…)`"),
                    loads,
                    false,
                    at,
                    "resources",
                )
            }
            model::Attribute::Inert => Cost::Zero,
            model::Attribute::Unknown => self.request(
                &format!("{named}, an attribute whose effect the model does not know"),
                at,
            ),
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
            let c = self.set(target, &key, &vals, p.span.start);
            // jQuery's `attr({ src: fn })` calls `fn` for each element.
            let c = if how == "`attr`" {
                self.per_element(c, Some(&p.value), &Vals::unknown(), how, p.span.start)
            } else {
                c
            };
            cost = cost.then(c);
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
        Cost::many(format!(
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

    /// A CDP session's `send(method, params)` at `site`: the command read
    /// by its name, the code it runs in the page analysed as page code. A
    /// `send` whose first argument is a string but no command is a
    /// socket's message, `sink`.
    pub(super) fn devtools(
        &mut self,
        args: &[Arg<'a>],
        site: &CallSite,
        sink: &model::Sink,
    ) -> Cost {
        let at = site.at;
        let Some(first) = args.first() else {
            return self.request(sink.label, at);
        };
        let Some(method) = first.vals.as_str() else {
            self.opaque(
                "a `send` whose DevTools command the analysis cannot read",
                at,
            );
            return Cost::Zero;
        };
        let command = method.split_once('.').is_some_and(|(domain, name)| {
            domain.starts_with(|c: char| c.is_ascii_uppercase())
                && name.starts_with(|c: char| c.is_ascii_lowercase())
                && method
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.')
        });
        if !command {
            return self.request(sink.label, at);
        }
        match model::devtools(method) {
            model::Devtools::Runs(param, every_page) => {
                let code = args
                    .get(1)
                    .and_then(|a| a.expr)
                    .and_then(|e| property_value(e, param))
                    .and_then(|e| {
                        let mut parts = Vec::new();
                        self.shape(e, &mut parts);
                        match parts.as_slice() {
                            [Part::Lit(s)] => Some(s.clone()),
                            _ => None,
                        }
                    });
                let Some(code) = code else {
                    self.opaque(
                        &format!("DevTools' `{method}` with code the analysis cannot read"),
                        at,
                    );
                    return Cost::Zero;
                };
                let cost = self.nested(&code, site);
                if every_page {
                    cost.repeated(|| {
                        How::at("runs in every page the target loads ({at})", at).render(self)
                    })
                } else {
                    cost
                }
            }
            model::Devtools::Request => self.request(&format!("DevTools' `{method}`"), at),
            model::Devtools::Opaque => {
                self.opaque(
                    &format!("DevTools' `{method}`, which runs code the analysis does not read"),
                    at,
                );
                Cost::Zero
            }
            model::Devtools::Inert => Cost::Zero,
            model::Devtools::Unknown => self.request(
                &format!("DevTools' `{method}`, a command whose effect the model does not know"),
                at,
            ),
        }
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
                let dormant = match inner.dormant {
                    Count::Zero => Cost::Zero,
                    Count::One => Cost::one(Run {
                        at,
                        text: format!("a `javascript:` link {whose}, when clicked"),
                        input: false,
                    }),
                    Count::Many { why } => Cost::many(format!("{whose}, {why}")),
                };
                self.dormant = std::mem::replace(&mut self.dormant, Cost::Zero).or(dormant);
                let mut first = None;
                for f in &inner.requests {
                    let c = self.request(&format!("{} {whose}", f.what), at);
                    first.get_or_insert(c);
                }
                match inner.count {
                    Count::Zero => Cost::Zero,
                    Count::One => first.unwrap_or(Cost::Zero),
                    Count::Many { why } => Cost::many(format!("{whose}, {why}")),
                }
            }
        }
    }
}

/// The tag of the elements a call of `name` on `receiver` hands its
/// callback, when the receiver is a list of elements of one known tag and
/// the method calls back with each (`querySelectorAll('a').forEach`).
fn each_element(name: &str, receiver: &Vals) -> Option<String> {
    if !model::iterates_elements(name) {
        return None;
    }
    one_tag(receiver)
}

/// The tag of the elements a call gives, when it gives some of a list of
/// elements of one tag (`els.filter(…)`, `Array.from(els)`).
fn kept_elements(site: &CallSite, args: &[Arg<'_>]) -> Option<String> {
    if !model::keeps_elements(&site.name) {
        return None;
    }
    match args {
        [one] if site.name == "from" => one_tag(&one.vals),
        _ if site.name == "from" => None,
        _ => one_tag(&site.receiver),
    }
}

/// The tag, when every value is an element of that one known tag.
pub(super) fn one_tag(vals: &Vals) -> Option<String> {
    let mut tag: Option<&String> = None;
    for v in vals.iter() {
        match v {
            Value::Element(t) if !t.is_empty() && tag.is_none_or(|x| x == t) => tag = Some(t),
            _ => return None,
        }
    }
    tag.cloned()
}

/// The value of property `name` of the object literal `e`, written as
/// `name: value` or `'name': value`.
fn property_value<'e>(e: &'e Expression<'e>, name: &str) -> Option<&'e Expression<'e>> {
    let Expression::ObjectExpression(o) = e else {
        return None;
    };
    o.properties.iter().find_map(|p| match p {
        ObjectPropertyKind::ObjectProperty(p)
            if !p.computed || matches!(p.key, PropertyKey::StringLiteral(_)) =>
        {
            let key = match &p.key {
                PropertyKey::StaticIdentifier(id) => Some(id.name.as_str()),
                PropertyKey::StringLiteral(s) => Some(s.value.as_str()),
                _ => None,
            };
            (key == Some(name)).then_some(&p.value)
        }
        _ => None,
    })
}
