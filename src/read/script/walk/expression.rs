//! Expressions: their values (what they may evaluate to) and the requests
//! evaluating them starts; members of the objects that reach requests.

use super::*;

impl<'a> Walker<'a, '_> {
    pub(super) fn expr(&mut self, e: &'a Expression<'a>) -> (Vals, Cost) {
        match e {
            Expression::BooleanLiteral(_)
            | Expression::NullLiteral(_)
            | Expression::NumericLiteral(_)
            | Expression::BigIntLiteral(_)
            | Expression::RegExpLiteral(_)
            | Expression::ImportMeta(_)
            | Expression::NewTarget(_)
            | Expression::Super(_) => (Vals::unknown(), Cost::Zero),
            Expression::StringLiteral(s) => {
                // `Object.defineProperty(o, 'then', …)`, `Reflect.set(o, 'then', …)`.
                self.note_member_name(s.value.as_str());
                let text = s.value.as_str();
                self.note_literal(text, s.span);
                self.note_embedded(text, s.span.start);
                (Vals::of(Value::Str(text.to_owned())), Cost::Zero)
            }
            Expression::TemplateLiteral(t) => self.template(t),
            Expression::Identifier(id) => (self.read(id.name.as_str()), Cost::Zero),
            // An event handler's `this` is its element, whatever else the
            // walk knows it to be.
            Expression::ThisExpression(_) if self.element_this => {
                let mut this = Vals::unknown();
                for v in self.this().iter() {
                    // The handler's own `this`, not the global object.
                    if *v != Value::Global {
                        this.add(v.clone());
                    }
                }
                (this, Cost::Zero)
            }
            Expression::ThisExpression(_) => (self.this(), Cost::Zero),
            Expression::ArrayExpression(a) => {
                let mut cost = Cost::Zero;
                let how = How::at(
                    "is stored in an array ({at}), where the analysis cannot follow it",
                    a.span.start,
                );
                for el in &a.elements {
                    let e = match el {
                        ArrayExpressionElement::SpreadElement(s) => &s.argument,
                        ArrayExpressionElement::Elision(_) => continue,
                        other => other.to_expression(),
                    };
                    // `['https:', '', host].join('/')`: the pieces of a URL
                    // whose host is joined at run time.
                    if let Expression::StringLiteral(s) = e
                        && url::bare_scheme(s.value.as_str())
                        && self.concat == 0
                    {
                        let what = format!("`{}` joined with other parts", s.value);
                        let found = self.found(&what, s.span.start);
                        self.unknown_hosts.insert((s.span.start, what), found);
                    }
                    let (v, c) = self.expr(e);
                    self.note_stored(None, &v);
                    cost = cost
                        .then(c)
                        .then(self.escape(&v, e.span().start, &how, false));
                    // `[...document.querySelectorAll('a')]`: the same elements.
                    if let ([ArrayExpressionElement::SpreadElement(_)], Some(tag)) =
                        (a.elements.as_slice(), call::one_tag(&v))
                    {
                        return (Vals::of(Value::Element(tag)), cost);
                    }
                }
                (Vals::of(Value::Plain), cost)
            }
            Expression::ArrowFunctionExpression(a) => {
                (Vals::of(self.define(FnNode::Arrow(a))), Cost::Zero)
            }
            Expression::FunctionExpression(f) => {
                (Vals::of(self.define(FnNode::Function(f))), Cost::Zero)
            }
            Expression::AssignmentExpression(a) => self.assignment(a),
            Expression::AwaitExpression(a) => self.expr(&a.argument),
            Expression::BinaryExpression(b) => {
                if b.operator == BinaryOperator::Addition {
                    self.concatenation(e, b)
                } else {
                    let (_, l) = self.expr(&b.left);
                    let (_, r) = self.expr(&b.right);
                    (Vals::unknown(), l.then(r))
                }
            }
            Expression::CallExpression(c) => {
                let (v, cost) = self.call(&c.callee, &c.arguments, c.span, false);
                match self.built_string(c) {
                    Some(s) => (s, cost),
                    None => (v, cost),
                }
            }
            Expression::ChainExpression(c) => match &c.expression {
                ChainElement::CallExpression(call) => {
                    self.call(&call.callee, &call.arguments, call.span, false)
                }
                ChainElement::TSNonNullExpression(t) => self.expr(&t.expression),
                other => self.member(other.to_member_expression()),
            },
            Expression::ClassExpression(c) => (Vals::of(Value::Plain), self.class(c)),
            Expression::ConditionalExpression(c) => {
                let (_, test) = self.expr(&c.test);
                let (mut v, a) = self.expr(&c.consequent);
                let (w, b) = self.expr(&c.alternate);
                v.join_owned(w);
                (v, test.then(a.or(b)))
            }
            Expression::ImportExpression(i) => self.import(i),
            Expression::LogicalExpression(l) => {
                let (mut v, a) = self.expr(&l.left);
                let (w, b) = self.expr(&l.right);
                v.join_owned(w);
                (v, a.then(b))
            }
            Expression::NewExpression(n) => self.call(&n.callee, &n.arguments, n.span, true),
            Expression::ObjectExpression(o) => self.object(o),
            Expression::ParenthesizedExpression(p) => self.expr(&p.expression),
            Expression::SequenceExpression(s) => {
                let mut cost = Cost::Zero;
                let mut last = Vals::unknown();
                for e in &s.expressions {
                    let (v, c) = self.expr(e);
                    cost = cost.then(c);
                    last = v;
                }
                (last, cost)
            }
            Expression::TaggedTemplateExpression(t) => self.tagged(t),
            Expression::UnaryExpression(u) => (Vals::unknown(), self.expr(&u.argument).1),
            Expression::UpdateExpression(u) => {
                let cost = match u.argument.as_member_expression() {
                    Some(m) => self.member_parts(m).2,
                    None => Cost::Zero,
                };
                (Vals::unknown(), cost)
            }
            Expression::YieldExpression(y) => match &y.argument {
                Some(a) => {
                    let (v, c) = self.expr(a);
                    // `function* g() { yield el.loadMore }`: what the
                    // generator gives may be a page's method
                    // (`for (const f of g()) f()`).
                    if v.iter().any(|v| matches!(v, Value::Unlisted))
                        && let Some(ctx) = self.fns.last_mut()
                    {
                        ctx.returns.add(Value::Unlisted);
                    }
                    let how = How::at("runs after being yielded ({at})", y.span.start);
                    (
                        Vals::unknown(),
                        c.then(self.escape(&v, y.span.start, &how, false)),
                    )
                }
                None => (Vals::unknown(), Cost::Zero),
            },
            Expression::PrivateInExpression(p) => (Vals::unknown(), self.expr(&p.right).1),
            Expression::StaticMemberExpression(_)
            | Expression::ComputedMemberExpression(_)
            | Expression::PrivateFieldExpression(_) => self.member(e.to_member_expression()),
            _ => {
                self.opaque("syntax pace-hook does not read", e.span().start);
                (Vals::unknown(), Cost::Zero)
            }
        }
    }

    pub(super) fn template(&mut self, t: &'a TemplateLiteral<'a>) -> (Vals, Cost) {
        let mut parts = Vec::new();
        let mut cost = Cost::Zero;
        for (i, q) in t.quasis.iter().enumerate() {
            match &q.value.cooked {
                Some(s) => {
                    push_lit(&mut parts, s.as_str());
                    self.note_embedded(s.as_str(), q.span.start);
                }
                None => parts.push(Part::Hole),
            }
            if let Some(e) = t.expressions.get(i) {
                let (v, c) = self.part(e);
                cost = cost.then(c);
                match v.as_str() {
                    Some(s) => push_lit(&mut parts, s),
                    None => parts.push(Part::Hole),
                }
            }
        }
        self.note_string(&parts, t.span);
        (string_value(&parts), cost)
    }

    pub(super) fn concatenation(
        &mut self,
        e: &'a Expression<'a>,
        b: &'a BinaryExpression<'a>,
    ) -> (Vals, Cost) {
        let root = self.concat == 0;
        let (_, l) = self.part(&b.left);
        let (_, r) = self.part(&b.right);
        if !root {
            return (Vals::unknown(), l.then(r));
        }
        let mut parts = Vec::new();
        self.shape(e, &mut parts);
        self.note_string(&parts, b.span);
        (string_value(&parts), l.then(r))
    }

    /// Walk an operand of a concatenation or a `${…}` of a template. A
    /// string, a number, a name or a nested `+` is a part of the whole
    /// string, which is checked for a URL once, whole; anything else (a
    /// call, a function, a conditional) is an expression of its own, whose
    /// strings are checked where they are: `'a' + f('https://other.org/')`
    /// names `other.org`.
    fn part(&mut self, e: &'a Expression<'a>) -> (Vals, Cost) {
        let saved = self.concat;
        self.concat = if has_text(e) { saved + 1 } else { 0 };
        let walked = self.expr(e);
        self.concat = saved;
        walked
    }

    /// The known and unknown parts of a string expression, without walking
    /// it for requests (the caller did). Only the expressions [`has_text`]
    /// names have any known part.
    pub(super) fn shape(&self, e: &'a Expression<'a>, parts: &mut Vec<Part>) {
        match e {
            Expression::StringLiteral(s) => push_lit(parts, s.value.as_str()),
            Expression::NumericLiteral(n) => push_lit(parts, &n.value.to_string()),
            Expression::ParenthesizedExpression(p) => self.shape(&p.expression, parts),
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
                self.shape(&b.left, parts);
                self.shape(&b.right, parts);
            }
            Expression::TemplateLiteral(t) => {
                for (i, q) in t.quasis.iter().enumerate() {
                    match &q.value.cooked {
                        Some(s) => push_lit(parts, s.as_str()),
                        None => parts.push(Part::Hole),
                    }
                    if let Some(e) = t.expressions.get(i) {
                        self.shape(e, parts);
                    }
                }
            }
            Expression::Identifier(id) => {
                let known = self
                    .lookup(id.name.as_str())
                    .and_then(|b| self.binding(b))
                    .and_then(|v| v.as_str().map(str::to_owned));
                match known {
                    Some(s) => push_lit(parts, &s),
                    None => parts.push(Part::Hole),
                }
            }
            Expression::CallExpression(c) if !self.folded.is_empty() => {
                match self.folded.get(&c.span.start) {
                    Some(s) => push_lit(parts, s),
                    None => parts.push(Part::Hole),
                }
            }
            _ => parts.push(Part::Hole),
        }
    }

    /// Whether some known part of the text [`Self::shape`] reads from `e`
    /// holds a `(`, `@` or `\`, found without building the parts. A
    /// number's text never does.
    pub(super) fn text_may_load_css(&self, e: &'a Expression<'a>) -> bool {
        let held = |s: &str| s.contains(['(', '@', '\\']);
        match e {
            Expression::StringLiteral(s) => held(s.value.as_str()),
            Expression::ParenthesizedExpression(p) => self.text_may_load_css(&p.expression),
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
                // Both sides, as `shape` reads both: the same reads noted.
                let left = self.text_may_load_css(&b.left);
                self.text_may_load_css(&b.right) || left
            }
            Expression::TemplateLiteral(t) => {
                let mut any = t
                    .quasis
                    .iter()
                    .any(|q| q.value.cooked.as_ref().is_some_and(|s| held(s.as_str())));
                for e in &t.expressions {
                    any |= self.text_may_load_css(e);
                }
                any
            }
            Expression::Identifier(id) => self
                .lookup(id.name.as_str())
                .and_then(|b| self.binding(b))
                .and_then(|v| v.as_str())
                .is_some_and(held),
            _ => false,
        }
    }

    /// A string built by a call the model knows joins text
    /// (`'https://'.concat(h)`, `['https:', '', h].join('/')`): the whole is
    /// checked for a URL as a concatenation is, and its text, when known,
    /// is its value. `None` for any other call.
    fn built_string(&mut self, c: &'a CallExpression<'a>) -> Option<Vals> {
        let Expression::StaticMemberExpression(m) = &c.callee else {
            return None;
        };
        let builder = model::string_builder(m.property.name.as_str())?;
        let mut parts = Vec::new();
        match builder {
            model::Builder::Concat => {
                if !has_text(&m.object) {
                    return None;
                }
                self.shape(&m.object, &mut parts);
                for a in &c.arguments {
                    match a {
                        Argument::SpreadElement(_) => parts.push(Part::Hole),
                        a => self.shape(a.to_expression(), &mut parts),
                    }
                }
            }
            model::Builder::Join => {
                let Expression::ArrayExpression(array) = &m.object else {
                    // `pieces.join('://')`: a URL joined at run time.
                    if let Some(Argument::StringLiteral(s)) = c.arguments.first()
                        && url::bare_scheme(s.value.as_str())
                    {
                        let what = format!("pieces joined with `{}`", s.value);
                        let found = self.found(&what, s.span.start);
                        self.unknown_hosts.insert((s.span.start, what), found);
                    }
                    return None;
                };
                let mut sep = Vec::new();
                match c.arguments.first() {
                    None => push_lit(&mut sep, ","),
                    Some(Argument::SpreadElement(_)) => sep.push(Part::Hole),
                    Some(a) => self.shape(a.to_expression(), &mut sep),
                }
                for (i, el) in array.elements.iter().enumerate() {
                    if i > 0 {
                        for p in &sep {
                            match p {
                                Part::Lit(s) => push_lit(&mut parts, s),
                                Part::Hole => parts.push(Part::Hole),
                            }
                        }
                    }
                    match el {
                        ArrayExpressionElement::SpreadElement(_) => parts.push(Part::Hole),
                        ArrayExpressionElement::Elision(_) => {}
                        el => self.shape(el.to_expression(), &mut parts),
                    }
                }
            }
        }
        if !parts.iter().any(|p| matches!(p, Part::Lit(_))) {
            return None;
        }
        if self.concat == 0 {
            self.note_string(&parts, c.span);
        }
        Some(string_value(&parts))
    }

    pub(super) fn member(&mut self, m: &'a MemberExpression<'a>) -> (Vals, Cost) {
        let (obj, key, cost) = self.member_parts(m);
        (self.get(&obj, &key, m.span().start), cost)
    }

    pub(super) fn member_parts(&mut self, m: &'a MemberExpression<'a>) -> (Vals, Key<'a>, Cost) {
        match m {
            MemberExpression::StaticMemberExpression(s) => {
                let (o, c) = self.expr(&s.object);
                (
                    o,
                    Key::Name(Cow::Borrowed(s.property.name.as_str()), true),
                    c,
                )
            }
            MemberExpression::ComputedMemberExpression(c) => {
                let (o, c1) = self.expr(&c.object);
                let (k, c2) = self.expr(&c.expression);
                (o, self.key_of(&c.expression, &k), c1.then(c2))
            }
            MemberExpression::PrivateFieldExpression(p) => {
                let (o, c) = self.expr(&p.object);
                (o, Key::Private, c)
            }
        }
    }

    /// Member `key` of `obj`, read at `at`.
    pub(super) fn get(&mut self, obj: &Vals, key: &Key<'a>, at: u32) -> Vals {
        let mut out = Vals::none();
        for v in obj.iter() {
            let got = self.get_one(v, key, at);
            out.join_owned(got);
        }
        // `o.f` of `{ f: el.loadMore }`: a page's method, stored.
        if obj.iter().any(|v| matches!(v, Value::Plain)) && self.stored_page(key) {
            out.add(Value::Unlisted);
        }
        out
    }

    pub(super) fn get_one(&mut self, v: &Value, key: &Key<'a>, at: u32) -> Vals {
        let env = self.env;
        let one = Vals::of;
        match (v, key) {
            (_, Key::Private) => Vals::unknown(),
            // `x.constructor.constructor` is `Function`, which runs a string.
            (_, Key::Name(n, _)) if model::is_constructor(n) => one(Value::Opaque(
                "a call of a `.constructor` (it can be `Function`)",
            )),
            (Value::Global, Key::Name(n, true)) => {
                if model::is_frame_index(n) {
                    one(Value::Global)
                } else {
                    self.global_member(n)
                }
            }
            (Value::Global, _) => {
                self.opaque(
                    "a member of the global object read through a computed name (`window[…]`)",
                    at,
                );
                Vals::none()
            }
            (Value::Obj(o), Key::Name(n, _))
                if model::is_frame_index(n) && model::item_of(*o).is_some() =>
            {
                one(Value::Obj(model::item_of(*o).expect("checked")))
            }
            // `el.attributes.src`, `el.attributes[i]`: attribute nodes.
            (Value::Obj(o), _) if model::is_attribute_map(*o) => match key {
                Key::Name(n, _) => match model::member(*o, n, env) {
                    Some(def) => one(Value::from(def)),
                    None if model::is_frame_index(n) => one(Value::Attr(String::new())),
                    None => one(Value::Attr(n.to_ascii_lowercase())),
                },
                _ => one(Value::Attr(String::new())),
            },
            (Value::Obj(o), Key::Name(n, _)) => {
                match model::member(*o, n, env).or_else(|| model::by_name(n, env)) {
                    Some(def) => one(Value::from(def)),
                    // `document.onclick`: the page's handler.
                    None if model::is_page_handler(n) => page_handler(),
                    None => one(Value::Unlisted),
                }
            }
            (Value::Obj(o), Key::Unreadable) => {
                if model::reaches_requests(*o) {
                    self.opaque(
                        "a member of a browser object read through a computed name",
                        at,
                    );
                    return Vals::none();
                }
                one(Value::Dyn)
            }
            // The page's own handler (`btn.onclick`), which calling runs.
            (Value::Unknown | Value::Unlisted | Value::Dyn, Key::Name(n, _))
                if model::is_page_handler(n) =>
            {
                page_handler()
            }
            (
                Value::Unknown | Value::Unlisted | Value::Element(_) | Value::Dyn,
                Key::Name(n, _),
            ) => {
                match model::by_name(n, env) {
                    // `api.get(u)`, `router.push(p)`: a collection's name
                    // on page data the model cannot name is the page's own
                    // method, which may fetch.
                    Some(_) if matches!(v, Value::Unlisted) && model::page_verb(n) => {
                        one(Value::Unlisted)
                    }
                    Some(def) => one(Value::from(def)),
                    // `f.call(x)` of data is data's (`o.m.call(x)`, `m` a
                    // method of the script's); of an unlisted method, that
                    // method.
                    None if model::function_member(n).is_some() => one(match v {
                        Value::Unlisted => Value::Unlisted,
                        _ => Value::Unknown,
                    }),
                    None => one(Value::Unlisted),
                }
            }
            (
                Value::Unknown | Value::Unlisted | Value::Element(_) | Value::Dyn,
                Key::Unreadable,
            ) => one(Value::Dyn),
            (Value::Any, _) => one(Value::Any),
            (Value::Plain, Key::Name(n, _)) if model::plain_member(n).is_some() => {
                one(Value::from(model::plain_member(n).expect("checked")))
            }
            // `'https://'.concat(h)`, `'…'.split('')`: text made from text.
            (Value::Str(_), Key::Name(n, _)) if model::string_member(n).is_some() => {
                one(Value::from(model::string_member(n).expect("checked")))
            }
            (Value::Plain | Value::Str(_) | Value::Attr(_), _) => Vals::unknown(),
            (Value::Parsed(unread), _) => one(Value::Parsed(*unread)),
            (
                Value::Sink(_)
                | Value::Opaque(_)
                | Value::Effect(_)
                | Value::Func(_)
                | Value::Via(_)
                | Value::BindOf(_),
                Key::Name(n, _),
            ) => match model::function_member(n) {
                // `f.call.call(g, …)` calls `g`, not `f`: the analysis does
                // not follow `.call` of `.call`.
                Some(_) if matches!(v, Value::Via(_) | Value::BindOf(_)) => one(Value::Opaque(
                    "a call through `.call` or `.bind` of `.call`",
                )),
                Some(model::FnMember::Call) => one(Value::Via(Box::new(v.clone()))),
                Some(model::FnMember::Bind) => one(Value::BindOf(Box::new(v.clone()))),
                // A member of the script's function (`F.prototype`): the
                // script's.
                None if matches!(v, Value::Func(_)) => one(Value::Plain),
                // Of a platform's function (`Function.prototype`), a member
                // the model does not list.
                None => one(Value::Unlisted),
            },
            (Value::Func(_), Key::Unreadable) => one(Value::Dyn),
            (
                Value::Sink(_)
                | Value::Opaque(_)
                | Value::Effect(_)
                | Value::Via(_)
                | Value::BindOf(_),
                Key::Unreadable,
            ) => {
                self.opaque(
                    "a member of a function that starts requests, read through a computed name",
                    at,
                );
                Vals::none()
            }
            (Value::Arguments(id), Key::Name(n, _)) if model::is_callee(n) => one(Value::Func(*id)),
            (Value::Arguments(_), _) => Vals::unknown(),
        }
    }

    pub(super) fn object(&mut self, o: &'a ObjectExpression<'a>) -> (Vals, Cost) {
        let mut cost = Cost::Zero;
        for p in &o.properties {
            match p {
                ObjectPropertyKind::ObjectProperty(p) => {
                    let (key, c) = self.property_key(&p.key, p.computed, true);
                    cost = cost.then(c);
                    if let Key::Name(n, _) = &key {
                        self.note_member_name(n);
                    }
                    // A method's `this` is its object, as the script made it.
                    let method = match &p.value {
                        Expression::FunctionExpression(f) => {
                            self.method(f.span.start, &Vals::of(Value::Plain));
                            true
                        }
                        _ => false,
                    };
                    let (v, c) = self.expr(&p.value);
                    self.note_stored(Some(&key), &v);
                    cost = cost.then(c);
                    let at = p.span.start;
                    let how = match p.kind {
                        PropertyKind::Get | PropertyKind::Set => {
                            How::at("runs as a getter or setter ({at})", at)
                        }
                        PropertyKind::Init if p.method => How::at(
                            "runs as an object's method ({at}), whose calls the analysis does not follow",
                            at,
                        ),
                        PropertyKind::Init => How::at(
                            "is stored in an object ({at}), where the analysis cannot follow it",
                            at,
                        ),
                    };
                    // `{ view: window }` is how events are made; a window
                    // stored under any other name is lost track of.
                    let reads_only = matches!(&key, Key::Name(n, _) if model::window_key(n));
                    let saved = std::mem::replace(&mut self.method_this, method);
                    cost = cost.then(self.escape(&v, at, &how, reads_only));
                    self.method_this = saved;
                }
                ObjectPropertyKind::SpreadProperty(s) => {
                    let (v, c) = self.expr(&s.argument);
                    // `{ ...window.api }`: its members, under keys unread.
                    self.note_spread(&v);
                    let how = How::at(
                        "is copied into an object ({at}), where the analysis cannot follow it",
                        s.span.start,
                    );
                    cost = cost
                        .then(c)
                        .then(self.escape(&v, s.span.start, &how, false));
                }
            }
        }
        (Vals::of(Value::Plain), cost)
    }

    pub(super) fn import(&mut self, i: &'a ImportExpression<'a>) -> (Vals, Cost) {
        let (v, mut cost) = self.expr(&i.source);
        if let Some(o) = &i.options {
            cost = cost.then(self.expr(o).1);
        }
        let node_module = model::imports_modules(self.env)
            && v.iter().any(|v| matches!(v, Value::Str(s) if url::named(&[Part::Lit(s.clone())]) == Named::Nothing));
        if node_module {
            self.opaque(model::MODULE_IMPORT, i.span.start);
        } else if v.all_strings() {
            let sink = model::IMPORT;
            self.code_url(&v, sink.label, i.span.start, sink.loads);
            cost = cost.then(self.request(sink.label, i.span.start));
        } else {
            self.opaque(
                "`import()` of a module the analysis cannot read",
                i.span.start,
            );
        }
        (Vals::unknown(), cost)
    }

    pub(super) fn tagged(&mut self, t: &'a TaggedTemplateExpression<'a>) -> (Vals, Cost) {
        let (fvals, receiver, name, mut cost) = self.callee(&t.tag);
        // The tag reads the text as written (`String.raw`) and as escapes
        // make it: both may name a site.
        for raw in [false, true] {
            let mut parts = Vec::new();
            for (i, q) in t.quasi.quasis.iter().enumerate() {
                let text = if raw {
                    Some(&q.value.raw)
                } else {
                    q.value.cooked.as_ref()
                };
                match text {
                    Some(s) => {
                        push_lit(&mut parts, s.as_str());
                        self.note_embedded(s.as_str(), q.span.start);
                    }
                    None => parts.push(Part::Hole),
                }
                if i < t.quasi.expressions.len() {
                    parts.push(Part::Hole);
                }
            }
            self.note_string(&parts, t.quasi.span);
        }
        let mut args = vec![Arg {
            vals: Vals::of(Value::Plain),
            spread: false,
            expr: None,
        }];
        for e in &t.quasi.expressions {
            let (v, c) = self.expr(e);
            cost = cost.then(c);
            args.push(Arg {
                vals: v,
                spread: false,
                expr: Some(e),
            });
        }
        let site = CallSite {
            at: t.span.start,
            name,
            receiver,
            new: false,
        };
        let (v, c) = self.apply_all(&fvals, &args, &site);
        (v, cost.then(c))
    }
}

/// Whether [`Walker::shape`] reads any text from `e`: a string, a number, a
/// template, a name, a `+` of them. Anything else is one unknown part.
pub(super) fn has_text(e: &Expression<'_>) -> bool {
    match e {
        Expression::StringLiteral(_)
        | Expression::NumericLiteral(_)
        | Expression::TemplateLiteral(_)
        | Expression::Identifier(_) => true,
        Expression::ParenthesizedExpression(p) => has_text(&p.expression),
        Expression::BinaryExpression(b) => b.operator == BinaryOperator::Addition,
        _ => false,
    }
}

/// A handler of the page's (`btn.onclick`): page data, and a call of the
/// page's code.
pub(super) fn page_handler() -> Vals {
    let mut out = Vals::unknown();
    out.add(Value::Sink(model::PAGE_HANDLER));
    out
}
