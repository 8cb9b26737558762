//! Assignments: to variables (which only record the value), to properties
//! that load (`src`, `href`, `location`), to markup, and the checks on what
//! is assigned (`javascript:` URLs, markup that loads or runs code).

use super::*;

impl<'a> Walker<'a, '_> {
    /// A `javascript:` URL among `vals`, given to `what`, runs code.
    /// Where `loads_code` (a worker, a script, a frame), a `data:` or
    /// `blob:` URL runs code the script wrote, and, for workers and
    /// imports, any URL the analysis cannot read may be one.
    pub(super) fn code_url(&mut self, vals: &Vals, what: &str, at: u32, loads_code: Loads) {
        let scheme = |s: &str| -> String {
            s.trim_start_matches(|c: char| c <= ' ')
                .chars()
                .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                .take_while(|c| *c != ':')
                .take(16)
                .collect::<String>()
                .to_ascii_lowercase()
        };
        let mut javascript = false;
        let mut made = false;
        let mut unread = false;
        for v in vals.iter() {
            match v {
                Value::Str(s) => match scheme(s).as_str() {
                    "javascript" if s.contains(':') => javascript = true,
                    "data" | "blob" if s.contains(':') => made = true,
                    _ => {}
                },
                _ => unread = true,
            }
        }
        if javascript {
            self.opaque(
                &format!("{what} with a `javascript:` URL, which runs code"),
                at,
            );
        }
        if made && loads_code != Loads::No {
            self.opaque(
                &format!(
                    "{what} with a `data:` or `blob:` URL, which runs code the analysis cannot see"
                ),
                at,
            );
        }
        if unread && loads_code == Loads::Always {
            self.opaque(
                &format!("{what} with a URL the analysis cannot read, whose code it cannot see"),
                at,
            );
        }
    }

    /// Markup with values `vals` inserted by `label` at `at` into the page.
    pub(super) fn markup(&mut self, vals: &Vals, label: &str, at: u32) -> Cost {
        let into = if model::fragment_parsed(label) {
            markup::Into::Fragment
        } else {
            markup::Into::Page
        };
        self.markup_into(vals, label, at, into)
    }

    /// Markup with values `vals` inserted by `label` at `at` `into` a
    /// document: each value read, the largest count kept.
    pub(super) fn markup_into(
        &mut self,
        vals: &Vals,
        label: &str,
        at: u32,
        into: markup::Into,
    ) -> Cost {
        if !vals.all_strings() {
            if let Some((written, e)) = self.markup_expr
                && written == at
                && let Some(cost) = self.markup_with_holes(e, label, at, into)
            {
                return cost;
            }
            self.opaque(&format!("{label} with markup the analysis cannot read"), at);
            return Cost::Zero;
        }
        let mut cost = Cost::Zero;
        for v in vals.iter() {
            if let Value::Str(html) = v
                && markup::may_load(html)
            {
                let read = markup::read(html, into);
                let c = self.markup_read(read, label, at, true);
                cost = cost.or(c);
            }
        }
        cost
    }

    /// Markup built at run time, written as `e` (`` `<li>${i.name}</li>` ``,
    /// `items.map(i => …).join('')`), inserted by `label` at `at`: read
    /// with a [`markup::HOLE`] for each part the analysis cannot read, a
    /// list's markup once for each item. A hole where text goes holds
    /// text: the script reads it from the page or its data at run time, and
    /// the page's own data is its business, as its own scripts are; markup
    /// the script itself wrote could land there only through a string it
    /// stored where the walk lost it, so when any string of the script that
    /// loads as markup is not part of `e`, the markup is unreadable as
    /// before. A hole in a tag's or attribute's name, a handler, a script,
    /// or at the start of a frame's URL is unreadable too. `None`: not
    /// markup built so.
    pub(super) fn markup_with_holes(
        &mut self,
        e: &'a Expression<'a>,
        label: &str,
        at: u32,
        into: markup::Into,
    ) -> Option<Cost> {
        let mut parts = Vec::new();
        let mut lists = Vec::new();
        let mut used = Vec::new();
        if !self.markup_pieces(e, &mut parts, &mut lists, &mut used) {
            return None;
        }
        let tagged = |parts: &[Part]| {
            parts
                .iter()
                .any(|p| matches!(p, Part::Lit(s) if s.contains('<')))
        };
        if !(tagged(&parts) || lists.iter().any(|(_, l)| tagged(l))) {
            return None;
        }
        if self
            .loading_literals()
            .iter()
            .any(|span| !used.contains(span))
        {
            return None;
        }
        let text = |parts: &[Part]| -> String {
            parts
                .iter()
                .map(|p| match p {
                    Part::Lit(s) => s.replace(markup::HOLE, ""),
                    Part::Hole => markup::HOLE.to_string(),
                })
                .collect()
        };
        // `<${tag}`: a hole where a tag starts may be any tag.
        // `src=${u}`, unquoted, may hold more attributes.
        let opens_tag = |t: &str| {
            t.contains(&format!("<{}", markup::HOLE))
                || t.contains(&format!("</{}", markup::HOLE))
                || t.split(markup::HOLE)
                    .zip(t.split(markup::HOLE).skip(1))
                    .any(|(before, _)| before.trim_end().ends_with('='))
        };
        let outer = text(&parts);
        let inners: Vec<(u32, String)> = lists.iter().map(|(at, l)| (*at, text(l))).collect();
        if opens_tag(&outer) || inners.iter().any(|(_, t)| opens_tag(t)) {
            return None;
        }
        let mut cost = self.markup_read(markup::read(&outer, into), label, at, true);
        for (list, inner) in inners {
            let c = self.markup_read(markup::read(&inner, into), label, at, true);
            let c = c.repeated(|| {
                format!(
                    "once for each item of the list mapped at {}",
                    self.pos(list)
                )
            });
            cost = cost.then(c);
        }
        Some(cost)
    }

    /// The parts of markup written as `e`, as [`Walker::shape`] reads a
    /// string, with each `list.map(f).join(sep)` a hole here and its
    /// callback's markup in `lists`, and the literals read in `used`.
    /// `false` when a separator may be markup.
    fn markup_pieces(
        &self,
        e: &'a Expression<'a>,
        parts: &mut Vec<Part>,
        lists: &mut Vec<(u32, Vec<Part>)>,
        used: &mut Vec<Span>,
    ) -> bool {
        match e {
            Expression::StringLiteral(s) => {
                push_lit(parts, s.value.as_str());
                used.push(s.span);
            }
            Expression::ParenthesizedExpression(p) => {
                return self.markup_pieces(&p.expression, parts, lists, used);
            }
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
                return self.markup_pieces(&b.left, parts, lists, used)
                    && self.markup_pieces(&b.right, parts, lists, used);
            }
            Expression::TemplateLiteral(t) => {
                for (i, q) in t.quasis.iter().enumerate() {
                    match &q.value.cooked {
                        Some(s) => push_lit(parts, s.as_str()),
                        None => parts.push(Part::Hole),
                    }
                    used.push(q.span);
                    used.push(t.span);
                    if let Some(e) = t.expressions.get(i)
                        && !self.markup_pieces(e, parts, lists, used)
                    {
                        return false;
                    }
                }
            }
            Expression::CallExpression(c) => match mapped(c) {
                Some((returned, sep)) => {
                    if let Some(Argument::StringLiteral(s)) = sep {
                        used.push(s.span);
                        if s.value.contains('<') {
                            return false;
                        }
                    } else if sep.is_some() {
                        return false;
                    }
                    let mut inner = Vec::new();
                    if !self.markup_pieces(returned, &mut inner, lists, used) {
                        return false;
                    }
                    lists.push((c.span.start, inner));
                    parts.push(Part::Hole);
                }
                None => self.shape(e, parts),
            },
            other => self.shape(other, parts),
        }
        true
    }

    /// Where the strings of the script that, as markup, load or run
    /// something are (`'<img src=/a>'`): looked for once, the first time
    /// markup with holes is read.
    fn loading_literals(&mut self) -> &[Span] {
        if self.loading_literals.is_none() {
            let mut found = LoadingLiterals { spans: Vec::new() };
            match self.root {
                Some(Root::Body(f)) => found.visit_function(f, ScopeFlags::empty()),
                Some(Root::Function(e)) => found.visit_expression(e),
                None => {}
            }
            self.loading_literals = Some(found.spans);
        }
        self.loading_literals.as_deref().unwrap_or_default()
    }

    /// The markup documents of the `data:` URLs among `vals`, handed to
    /// `label` at `at` (`page.goto('data:text/html,…')`): what they load,
    /// the largest of them. A `data:` body that is not markup loads
    /// nothing.
    pub(super) fn data_documents(&mut self, vals: &Vals, label: &str, at: u32) -> Cost {
        let mut cost = Cost::Zero;
        for v in vals.iter() {
            if let Value::Str(url) = v
                && let Some(Some((mime, body))) = crate::read::url::data_document(url)
                && markup::is_markup(&mime)
                && markup::may_load(&body)
            {
                let read = markup::read_data_document(&body);
                let what = format!("the `data:` document given to {label}");
                let c = self.markup_read(read, &what, at, true);
                cost = cost.or(c);
            }
        }
        cost
    }

    /// What read markup costs: a request per load, and what its code
    /// (inline scripts, handlers, `javascript:` URLs) makes, analysed as
    /// JavaScript.
    /// `placed`: the markup is inserted by code at `at` (`innerHTML = …`),
    /// not a document of its own.
    pub(super) fn markup_read(
        &mut self,
        read: markup::Read,
        label: &str,
        at: u32,
        placed: bool,
    ) -> Cost {
        for o in &read.opaque {
            self.opaque(&format!("{label} with {o}"), at);
        }
        if read.unfinished && model::markup_continues(label) {
            self.opaque(
                &format!("{label} with markup that ends inside a tag, a comment or a script, which the next write goes on from"),
                at,
            );
        }
        for u in read.urls {
            self.urls.insert((at, u), ());
        }
        let mut cost = match read.loads.as_slice() {
            [] => Cost::Zero,
            [one] => self.request(&format!("{one} in the markup of {label}"), at),
            [first, ..] => {
                self.request(&format!("{first} in the markup of {label}"), at);
                let does = if placed {
                    format!("{label} at {} inserts markup that loads", self.pos(at))
                } else {
                    format!("{label} loads")
                };
                Cost::many(format!(
                    "{does} {} resources ({})",
                    read.loads.len(),
                    read.loads.join(", ")
                ))
            }
        };
        for code in read.code {
            let whose = format!("in {} in the markup of {label}", code.what);
            if code.on_activation {
                // A link's code waits for a click: it is kept apart, for the
                // script's own activations ([`Walker::finish`]).
                let requests = self.requests.clone();
                let c = self.nested_in(&code.text, &whose, at, code.handler);
                self.requests = requests;
                let c = c.through(|| "when the link is activated".to_owned());
                self.dormant = std::mem::replace(&mut self.dormant, Cost::Zero).or(c);
                continue;
            }
            let c = self.nested_in(&code.text, &whose, at, code.handler);
            let c = if code.repeats {
                let what = code.what.clone();
                c.repeated(|| format!("{what} may run any number of times"))
            } else {
                c
            };
            cost = cost.then(c);
        }
        cost
    }

    pub(super) fn assignment(&mut self, a: &'a AssignmentExpression<'a>) -> (Vals, Cost) {
        let (rhs, cost) = self.expr(&a.right);
        let stored = match a.operator {
            AssignmentOperator::Assign
            | AssignmentOperator::LogicalAnd
            | AssignmentOperator::LogicalOr
            | AssignmentOperator::LogicalNullish => rhs.clone(),
            // `+=` and the like store a new number or string.
            _ => Vals::unknown(),
        };
        // `+=` reads the old markup back and parses it again with the new.
        let saved = std::mem::replace(
            &mut self.markup_expr,
            (a.operator == AssignmentOperator::Assign).then_some((a.span.start, &a.right)),
        );
        let mut c = self.assign(&a.left, &stored, a.span.start);
        self.markup_expr = saved;
        // Markup counts its own `url(`s.
        let markup = matches!(
            a.left.as_member_expression().and_then(MemberExpression::static_property_name),
            Some(n) if model::inserts_markup(n)
        );
        if a.left.as_member_expression().is_some() && !markup {
            c = c.then(self.css(&a.right, a.span.start));
        }
        (rhs, cost.then(c))
    }

    pub(super) fn assign(
        &mut self,
        target: &'a AssignmentTarget<'a>,
        vals: &Vals,
        at: u32,
    ) -> Cost {
        match target {
            AssignmentTarget::AssignmentTargetIdentifier(id) => {
                self.assign_name(id.name.as_str(), vals, id.span.start)
            }
            AssignmentTarget::StaticMemberExpression(_)
            | AssignmentTarget::ComputedMemberExpression(_)
            | AssignmentTarget::PrivateFieldExpression(_) => {
                let m = target.to_member_expression();
                let (obj, key, cost) = self.member_parts(m);
                cost.then(self.set(&obj, &key, vals, m.span().start))
            }
            AssignmentTarget::ArrayAssignmentTarget(a) => {
                let mut cost = Cost::Zero;
                for el in a.elements.iter().flatten() {
                    cost = cost.then(self.assign_maybe_default(el, &Vals::unknown(), at));
                }
                if let Some(rest) = &a.rest {
                    cost = cost.then(self.assign(&rest.target, &Vals::unknown(), at));
                }
                cost
            }
            AssignmentTarget::ObjectAssignmentTarget(o) => {
                let mut cost = Cost::Zero;
                for p in &o.properties {
                    match p {
                        AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(pi) => {
                            let name = pi.binding.name.as_str();
                            let mut v = self.get(
                                vals,
                                &Key::Name(Cow::Borrowed(name), true),
                                pi.span.start,
                            );
                            if let Some(init) = &pi.init {
                                let (d, c) = self.expr(init);
                                v.join_owned(d);
                                cost = cost.then(c);
                            }
                            cost = cost.then(self.assign_name(name, &v, pi.span.start));
                        }
                        AssignmentTargetProperty::AssignmentTargetPropertyProperty(pp) => {
                            let (key, c) = self.property_key(&pp.name, pp.computed, true);
                            cost = cost.then(c);
                            let v = self.get(vals, &key, pp.span.start);
                            cost = cost.then(self.assign_maybe_default(
                                &pp.binding,
                                &v,
                                pp.span.start,
                            ));
                        }
                    }
                }
                if let Some(rest) = &o.rest {
                    cost = cost.then(self.assign(&rest.target, vals, at));
                }
                cost
            }
            _ => {
                self.opaque("syntax pace-hook does not read", at);
                Cost::Zero
            }
        }
    }

    pub(super) fn assign_maybe_default(
        &mut self,
        t: &'a AssignmentTargetMaybeDefault<'a>,
        vals: &Vals,
        at: u32,
    ) -> Cost {
        match t {
            AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(d) => {
                let (dv, c) = self.expr(&d.init);
                let mut v = vals.clone();
                v.join_owned(dv);
                c.then(self.assign(&d.binding, &v, at))
            }
            other => self.assign(other.to_assignment_target(), vals, at),
        }
    }

    pub(super) fn assign_name(&mut self, name: &str, vals: &Vals, at: u32) -> Cost {
        if let Some(id) = self.lookup(name) {
            self.join_binding(id, vals);
            return Cost::Zero;
        }
        // A global: `location = u` navigates; anything else lands on the
        // global object, where page code can reach it.
        self.set(
            &Vals::of(Value::Global),
            &Key::Name(Cow::Owned(name.to_owned()), true),
            vals,
            at,
        )
    }

    /// Store `vals` in member `key` of `obj` at `at`.
    pub(super) fn set(&mut self, obj: &Vals, key: &Key<'a>, vals: &Vals, at: u32) -> Cost {
        let shown = key.shown();
        let how = if model::is_event_handler(shown) {
            How::new("runs as an event handler (`.{name}` at {at})", shown, at)
        } else {
            How::new(
                "is stored in `.{name}` ({at}), where the analysis cannot follow it",
                shown,
                at,
            )
        };
        let mut cost = Cost::Zero;
        if let Key::Name(n, _) = key {
            self.note_member_name(n);
        }
        if obj.iter().any(|v| matches!(v, Value::Plain)) {
            self.note_stored(Some(key), vals);
        }
        if let Key::Name(n, _) = key
            && model::url_assigned(n)
        {
            let frame_or_script = obj.iter().any(|v| match v {
                Value::Element(tag) => model::loads_document(n, tag),
                Value::Unknown | Value::Unlisted | Value::Dyn | Value::Any => {
                    model::loads_document(n, "")
                }
                _ => false,
            });
            let loads = if frame_or_script {
                Loads::FromMadeUrls
            } else {
                Loads::No
            };
            self.code_url(vals, &format!("assignment to `.{n}`"), at, loads);
        }
        for v in obj.iter() {
            let c = match (v, key) {
                (_, Key::Private) => Cost::Zero,
                (Value::Global, Key::Name(n, true)) => match model::assigned_global(n) {
                    Some(what) => self.request(&what, at),
                    None => {
                        self.join_global(n, vals);
                        Cost::Zero
                    }
                },
                (Value::Global, _) => {
                    self.opaque(
                        "assignment to a member of the global object through a computed name",
                        at,
                    );
                    Cost::Zero
                }
                (Value::Obj(o), Key::Name(n, _)) => match model::assigned_member(*o, n) {
                    Some(assigned) => self.assigned(assigned, vals, at),
                    None => match model::assigned_obj(*o, n) {
                        Some(what) => self.request(&what, at),
                        None => Cost::Zero,
                    },
                },
                (Value::Obj(o), Key::Unreadable) if model::reaches_requests(*o) => {
                    self.opaque(
                        "assignment to a member of a browser object through a computed name",
                        at,
                    );
                    Cost::Zero
                }
                (
                    Value::Unknown | Value::Unlisted | Value::Element(_) | Value::Dyn | Value::Any,
                    Key::Name(n, _),
                ) => {
                    let tag = match v {
                        Value::Element(t) => Some(t.as_str()),
                        _ => None,
                    };
                    self.assigned(model::assigned_element(tag, n), vals, at)
                }
                // An attribute node's value is the attribute's.
                (Value::Attr(n), Key::Name(k, _)) if model::sets_attribute_value(k) => {
                    let name = (!n.is_empty()).then_some(n.as_str());
                    self.set_attribute("the value of an attribute node", name, vals, at)
                }
                // Sloppy mode: `arguments[0] = v` sets the first parameter.
                (Value::Arguments(id), _) => {
                    if let Some(node) = self.node(*id) {
                        for p in &node.params().items {
                            self.bind(&p.pattern, vals, false);
                        }
                    }
                    Cost::Zero
                }
                (
                    Value::Unknown | Value::Unlisted | Value::Element(_) | Value::Dyn | Value::Any,
                    Key::Unreadable,
                ) => self.request(
                    "assignment to a member whose name the analysis cannot read (it may be `src`)",
                    at,
                ),
                _ => Cost::Zero,
            };
            cost = cost.or(c);
        }
        cost.then(self.escape(vals, at, &how, false))
    }

    /// What an assignment of `vals` at `at` does, as the model says.
    fn assigned(&mut self, assigned: model::Assigned, vals: &Vals, at: u32) -> Cost {
        match assigned {
            model::Assigned::Nothing => Cost::Zero,
            model::Assigned::Request(what) | model::Assigned::Unknown(what) => {
                self.request(&what, at)
            }
            model::Assigned::Markup(what) => self.markup(vals, &what, at),
            model::Assigned::Code(what) => {
                self.opaque(&what, at);
                Cost::Zero
            }
        }
    }
}

/// `list.map(f).join(sep)` with `f` a function written in place that
/// returns one expression: that expression and the separator.
fn mapped<'a>(c: &'a CallExpression<'a>) -> Option<(&'a Expression<'a>, Option<&'a Argument<'a>>)> {
    let Expression::StaticMemberExpression(join) = &c.callee else {
        return None;
    };
    let Expression::CallExpression(map) = &join.object else {
        return None;
    };
    let Expression::StaticMemberExpression(m) = &map.callee else {
        return None;
    };
    if join.property.name != "join" || m.property.name != "map" {
        return None;
    }
    let statements = match map.arguments.first()? {
        Argument::ArrowFunctionExpression(a) => match &a.body {
            ArrowFunctionBody::FunctionBody(body) => &body.statements,
            body => return Some((body.to_expression(), c.arguments.first())),
        },
        Argument::FunctionExpression(f) => &f.body.as_ref()?.statements,
        _ => return None,
    };
    let returned = match statements.as_slice() {
        [Statement::ReturnStatement(r)] => r.argument.as_ref()?,
        _ => return None,
    };
    Some((returned, c.arguments.first()))
}

/// The strings of code that as markup load or run something.
struct LoadingLiterals {
    spans: Vec<Span>,
}

impl LoadingLiterals {
    fn check(&mut self, text: &str, span: Span) {
        if markup::may_load(text) {
            let read = markup::read(text, markup::Into::Page);
            if !(read.loads.is_empty() && read.code.is_empty() && read.opaque.is_empty()) {
                self.spans.push(span);
            }
        }
    }
}

impl<'a> Visit<'a> for LoadingLiterals {
    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        self.check(it.value.as_str(), it.span);
    }

    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        for q in &it.quasis {
            if let Some(s) = &q.value.cooked {
                self.check(s.as_str(), q.span);
            }
        }
        walk::walk_template_literal(self, it);
    }
}
