//! Names: where each is declared, what each may hold, and how patterns
//! (`const { fetch: f } = window`) bind them. A binding is keyed by the
//! offset of its declaration and holds every value ever assigned to it.

use std::collections::hash_map::Entry;

use super::*;

/// The key under which reads of [`Walker::lost_this`] are noted: no
/// function starts at the largest offset.
const LOST_THIS: u32 = u32::MAX;

impl<'a> Walker<'a, '_> {
    pub(super) fn open_scope(&mut self, function: bool) {
        self.opened += 1;
        let names = self.spare.pop().unwrap_or_default();
        self.scopes.push(Scope {
            names,
            function,
            serial: self.opened,
            pending: Vec::new(),
        });
    }

    /// Close the innermost scope, first walking the bodies of its function
    /// declarations that no call has walked yet.
    pub(super) fn close_scope(&mut self) {
        let pending = match self.scopes.last_mut() {
            Some(s) => std::mem::take(&mut s.pending),
            None => Vec::new(),
        };
        for id in pending {
            self.settle(id);
        }
        if let Some(scope) = self.scopes.pop() {
            self.spare_names(scope.names);
        }
    }

    /// Keep a closed scope's table, emptied, for the next scope to open.
    pub(super) fn spare_names(&mut self, mut names: ScopeNames<'a>) {
        names.clear();
        self.spare.push(names);
    }

    /// `text` with its hash, to look it up in the scopes.
    pub(super) fn name<'t>(&self, text: &'t str) -> Name<'t> {
        Name {
            hash: self.names.hash_one(text),
            text,
        }
    }

    pub(super) fn declare(&mut self, name: &'a str, id: u32, function_scope: bool) {
        let name = self.name(name);
        let scope = if function_scope {
            self.scopes
                .iter_mut()
                .rev()
                .find(|s| s.function)
                .expect("the root scope is a function scope")
        } else {
            self.scopes.last_mut().expect("a scope is open")
        };
        match scope.names.entry(name) {
            Entry::Occupied(first) => {
                let first = *first.get();
                if first != id
                    && self.aliases.insert(id, first) != Some(first)
                    && self.reads.seen(Kept::Alias, id)
                {
                    self.stale = true;
                }
            }
            Entry::Vacant(v) => {
                v.insert(id);
            }
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<u32> {
        let name = self.name(name);
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.names.get(&name).copied())
    }

    pub(super) fn binding_id(&self, id: u32) -> u32 {
        self.reads.note(Kept::Alias, id);
        self.aliases.get(&id).copied().unwrap_or(id)
    }

    pub(super) fn join_binding(&mut self, id: u32, vals: &Vals) {
        let id = self.binding_id(id);
        if vals.iter().next().is_none() {
            // The binding holds `undefined`: nothing the analysis follows.
            self.bindings.entry(id).or_default();
            return;
        }
        let entry = self.bindings.entry(id).or_default();
        if entry.join(vals) {
            self.changed = true;
            self.stale |= self.reads.seen(Kept::Binding, id);
        }
    }

    /// `this` in the script's function `id` may be any of `vals`.
    pub(super) fn join_this(&mut self, id: u32, vals: &Vals) {
        let entry = self.this_of.entry(id).or_default();
        if entry.join(vals) {
            self.changed = true;
            self.stale |= self.reads.seen(Kept::This, id);
        }
    }

    /// What `this` is where the walk is: that of the innermost function
    /// that is not an arrow.
    pub(super) fn this(&self) -> Vals {
        let Some(ctx) = self.fns.iter().rev().find(|f| !f.arrow) else {
            return Vals::of(Value::Global);
        };
        self.reads.note(Kept::This, ctx.id);
        let mut this = self.this_of.get(&ctx.id).cloned().unwrap_or_default();
        if self.methods.contains(&ctx.id) {
            self.reads.note(Kept::This, LOST_THIS);
            this.join(&self.lost_this);
        }
        this
    }

    /// The script's method `id`, whose `this` is its object.
    pub(super) fn method(&mut self, id: u32, this: &Vals) {
        self.methods.insert(id);
        self.join_this(id, this);
    }

    /// `.call(x)`, `.apply(x)` or `.bind(x)` of a function the walk lost
    /// track of: it may be a method of the script's.
    pub(super) fn join_lost_this(&mut self, vals: &Vals) {
        if self.lost_this.join(vals) {
            self.changed = true;
            self.stale |= self.reads.seen(Kept::This, LOST_THIS);
        }
    }

    /// The script gives an object a member of this name: a `then` of its
    /// own makes every `.then` one the analysis cannot count.
    pub(super) fn note_member_name(&mut self, name: &str) {
        // The first byte turns away nearly every name before the compare.
        if !self.own_then
            && matches!(name.as_bytes().first(), Some(b't' | b'c' | b'f'))
            && model::calls_back_once(name)
        {
            self.own_then = true;
            self.changed = true;
            self.stale |= self.reads.then.get();
        }
    }

    /// The script parses markup it cannot read into an inert document.
    pub(super) fn note_unread_document(&mut self) {
        if !self.unread_document {
            self.unread_document = true;
            self.changed = true;
            self.stale |= self.reads.unread_document.get();
        }
    }

    /// The script stores `vals` under `key` in an object of its own (an
    /// array's item when `key` is `None`): page data among them may be a
    /// page's method, called back from there.
    pub(super) fn note_stored(&mut self, key: Option<&Key<'_>>, vals: &Vals) {
        self.note_stored_as(key, vals, false);
    }

    /// Page data's members copied into an object of the script's
    /// (`{ ...window.api }`): under names the analysis does not know.
    pub(super) fn note_spread(&mut self, vals: &Vals) {
        self.note_stored_as(None, vals, true);
    }

    fn note_stored_as(&mut self, key: Option<&Key<'_>>, vals: &Vals, spread: bool) {
        if !vals.iter().any(|v| matches!(v, Value::Unlisted)) {
            return;
        }
        let stored = &mut self.stored_page;
        let asked = &self.reads.stored;
        // Whether the growth may change an answer this round gave.
        let stale = match key {
            _ if spread => {
                let grew = !std::mem::replace(&mut stored.any, true);
                grew.then(|| asked.all.get() || asked.items.get() || asked.names.get() != 0)
            }
            Some(Key::Name(n, _)) if !model::is_frame_index(n) => {
                let bit = name_bit(n);
                let known = stored.has_name(n, bit);
                if !known {
                    stored.names.push(n.as_ref().into());
                    stored.name_bits |= bit;
                }
                (!known).then(|| asked.all.get() || asked.names.get() & bit != 0)
            }
            Some(Key::Private) => None,
            None | Some(Key::Name(..) | Key::Unreadable) => {
                let grew = !std::mem::replace(&mut stored.items, true);
                grew.then(|| asked.all.get() || asked.items.get())
            }
        };
        if let Some(stale) = stale {
            self.changed = true;
            self.stale |= stale;
        }
    }

    /// Whether a member `key` of an object of the script's may hold page
    /// data the script stored there ([`Walker::note_stored`]).
    pub(super) fn stored_page(&self, key: &Key<'_>) -> bool {
        let stored = &self.stored_page;
        let asked = &self.reads.stored;
        // Only a "no" can change as the stores grow: note what was denied.
        match key {
            Key::Name(n, _) if model::is_frame_index(n) => {
                let found = stored.any || stored.items;
                asked.items.set(asked.items.get() || !found);
                found
            }
            Key::Name(n, _) => {
                let bit = name_bit(n);
                let found = stored.any || stored.has_name(n, bit);
                if !found {
                    asked.names.set(asked.names.get() | bit);
                }
                found
            }
            Key::Unreadable => {
                let found = stored.holds_any();
                asked.all.set(asked.all.get() || !found);
                found
            }
            // Nothing the script stores lands in a private field (a spread
            // copies none).
            Key::Private => false,
        }
    }

    /// Whether the script stored page data the model cannot name in an
    /// object or array of its own anywhere ([`Walker::note_stored`]).
    pub(super) fn stored_any(&self) -> bool {
        let found = self.stored_page.holds_any();
        let asked = &self.reads.stored.all;
        asked.set(asked.get() || !found);
        found
    }

    /// Whether the items of `list` may be functions of the page's: it is
    /// page data the model cannot name (`window.handlers`), or the script's
    /// own, once it stored such data in its objects.
    pub(super) fn may_hold_page_functions(&self, list: &Vals) -> bool {
        list.iter().any(|v| matches!(v, Value::Unlisted))
            || (list.iter().any(|v| matches!(v, Value::Plain)) && self.stored_any())
    }

    /// Whether the script parses markup it cannot read into an inert
    /// document anywhere.
    pub(super) fn unread_document(&self) -> bool {
        self.reads.unread_document.set(true);
        self.unread_document
    }

    /// Whether a `.then`, `.catch` or `.finally` called on `receiver` is a
    /// promise's, which calls its callback once.
    pub(super) fn promise_like(&self, receiver: &Vals) -> bool {
        self.reads.then.set(true);
        !self.own_then
            && receiver.iter().all(|v| {
                !matches!(
                    v,
                    Value::Plain | Value::Global | Value::Element(_) | Value::Str(_)
                )
            })
    }

    pub(super) fn join_global(&mut self, name: &str, vals: &Vals) {
        let entry = self.globals.entry(name.to_owned()).or_default();
        if entry.join(vals) {
            self.changed = true;
            self.stale |= self.reads.globals.get();
        }
    }

    /// The value of binding `id` (the first declaration's offset).
    pub(super) fn binding(&self, id: u32) -> Option<&Vals> {
        self.reads.note(Kept::Binding, id);
        self.bindings.get(&id)
    }

    /// The value of identifier `name`, read at `span`.
    pub(super) fn read(&mut self, name: &str) -> Vals {
        if let Some(id) = self.lookup(name) {
            return self.binding(id).cloned().unwrap_or_default();
        }
        if name == model::UNDEFINED {
            return Vals::none();
        }
        if name == "arguments"
            && let Some(ctx) = self.fns.iter_mut().rev().find(|f| !f.arrow)
        {
            ctx.uses_arguments = true;
            return Vals::of(Value::Arguments(ctx.id));
        }
        self.global_member(name)
    }

    pub(super) fn global_member(&self, name: &str) -> Vals {
        let mut out = Vals::none();
        if let Some(def) = model::global(name, self.env) {
            out.add(Value::from(def));
        }
        self.reads.globals.set(true);
        if let Some(user) = self.globals.get(name) {
            out.join(user);
        }
        if out.iter().next().is_none() {
            // The page's own globals, among them its handlers (`onload`).
            if model::is_page_handler(name) {
                return expression::page_handler();
            }
            // The page's own global, or one of the platform's the model
            // does not list: calling it is a possible request.
            out.add(Value::Unlisted);
        }
        out
    }

    /// Declare the names of a block's `let`, `const`, `class` and function
    /// declarations, and give each function declaration its value.
    pub(super) fn hoist_block(&mut self, stmts: &'a [Statement<'a>]) {
        for s in stmts {
            match s {
                Statement::VariableDeclaration(d) if !d.kind.is_var() => {
                    for decl in &d.declarations {
                        self.declare_pattern(&decl.id);
                    }
                }
                Statement::FunctionDeclaration(f) => {
                    if let Some(id) = &f.id {
                        self.declare(id.name.as_str(), id.span.start, false);
                        self.join_binding(id.span.start, &Vals::of(Value::Func(f.span.start)));
                        // Its body is walked at the first call that can
                        // see it, or when this scope closes.
                        let key = f.span.start;
                        if self.nodes.insert(key, FnNode::Function(f)).is_none()
                            && self.reads.seen(Kept::Node, key)
                        {
                            self.stale = true;
                        }
                        let at = self.scopes.len() - 1;
                        let serial = self.scopes[at].serial;
                        self.declared.insert(key, Some((at, serial, self.env)));
                        self.scopes[at].pending.push(key);
                    }
                }
                Statement::ClassDeclaration(c) => {
                    if let Some(id) = &c.id {
                        self.declare(id.name.as_str(), id.span.start, false);
                    }
                }
                _ => {}
            }
        }
    }

    /// Declare the `var`s of a function body, and (as sloppy mode does) the
    /// function declarations in its nested blocks.
    pub(super) fn hoist_vars(&mut self, stmts: &'a [Statement<'a>]) {
        let mut collector = VarCollector { names: Vec::new() };
        for s in stmts {
            if !matches!(s, Statement::FunctionDeclaration(_)) {
                collector.visit_statement(s);
            }
        }
        for (n, id) in collector.names {
            self.declare(n, id, true);
        }
    }

    /// Bind the names in `pattern` to `vals`. With `eval`, computed keys and
    /// defaults are walked too (a declaration); without, they are skipped (a
    /// call passing arguments in).
    pub(super) fn bind(
        &mut self,
        pattern: &'a BindingPattern<'a>,
        vals: &Vals,
        eval: bool,
    ) -> Cost {
        match pattern {
            BindingPattern::BindingIdentifier(b) => {
                self.join_binding(b.span.start, vals);
                Cost::Zero
            }
            BindingPattern::ObjectPattern(o) => {
                let mut cost = Cost::Zero;
                for p in &o.properties {
                    let (key, c) = self.property_key(&p.key, p.computed, eval);
                    cost = cost.then(c);
                    let sub = self.get(vals, &key, p.span.start);
                    cost = cost.then(self.bind(&p.value, &sub, eval));
                }
                if let Some(rest) = &o.rest {
                    cost = cost.then(self.bind(&rest.argument, vals, eval));
                }
                cost
            }
            BindingPattern::ArrayPattern(a) => {
                let mut cost = Cost::Zero;
                // `const [f] = [el.loadMore]`: an item may be a page's method.
                let mut item = Vals::unknown();
                if self.may_hold_page_functions(vals) {
                    item.add(Value::Unlisted);
                }
                for p in a.elements.iter().flatten() {
                    cost = cost.then(self.bind(p, &item, eval));
                }
                if let Some(rest) = &a.rest {
                    cost = cost.then(self.bind(&rest.argument, &item, eval));
                }
                cost
            }
            BindingPattern::AssignmentPattern(a) => {
                let mut vals = vals.clone();
                let mut cost = Cost::Zero;
                if eval {
                    let (d, c) = self.expr(&a.right);
                    vals.join(&d);
                    cost = c;
                }
                cost.then(self.bind(&a.left, &vals, eval))
            }
        }
    }

    pub(super) fn declare_pattern(&mut self, pattern: &'a BindingPattern<'a>) {
        // Most patterns are a name: declared without a list.
        if let BindingPattern::BindingIdentifier(b) = pattern {
            self.declare(b.name.as_str(), b.span.start, false);
            return;
        }
        let mut names = Vec::new();
        collect_names(pattern, &mut names);
        for (n, id) in names {
            self.declare(n, id, false);
        }
    }

    /// A property key: its name, and the cost of computing it.
    pub(super) fn property_key(
        &mut self,
        key: &'a PropertyKey<'a>,
        computed: bool,
        eval: bool,
    ) -> (Key<'a>, Cost) {
        match key {
            PropertyKey::StaticIdentifier(id) => {
                (Key::Name(Cow::Borrowed(id.name.as_str()), true), Cost::Zero)
            }
            PropertyKey::PrivateIdentifier(_) => (Key::Private, Cost::Zero),
            _ => {
                let e = key.to_expression();
                // A key written as a string is a string of the script: it
                // names a site like any other (`Object.keys` reads it).
                if let Expression::StringLiteral(s) = e
                    && (!computed || !eval)
                {
                    let text = s.value.as_str();
                    self.note_literal(text, s.span);
                    self.note_embedded(text, s.span.start);
                }
                if !computed {
                    return (
                        literal_key(e).map_or(Key::Unreadable, |k| Key::Name(k, true)),
                        Cost::Zero,
                    );
                }
                if !eval {
                    return (
                        literal_key(e).map_or(Key::Unreadable, |k| Key::Name(k, true)),
                        Cost::Zero,
                    );
                }
                let (v, c) = self.expr(e);
                (self.key_of(e, &v), c)
            }
        }
    }

    pub(super) fn key_of(&self, e: &'a Expression<'a>, v: &Vals) -> Key<'a> {
        if let Some(k) = literal_key(e) {
            return Key::Name(k, true);
        }
        match v.as_str() {
            Some(s) => Key::Name(Cow::Owned(s.to_owned()), false),
            None => Key::Unreadable,
        }
    }
}

/// The names a pattern declares, with the offsets that identify them.
fn collect_names<'a>(pattern: &BindingPattern<'a>, out: &mut Vec<(&'a str, u32)>) {
    match pattern {
        BindingPattern::BindingIdentifier(b) => out.push((b.name.as_str(), b.span.start)),
        BindingPattern::ObjectPattern(o) => {
            for p in &o.properties {
                collect_names(&p.value, out);
            }
            if let Some(r) = &o.rest {
                collect_names(&r.argument, out);
            }
        }
        BindingPattern::ArrayPattern(a) => {
            for p in a.elements.iter().flatten() {
                collect_names(p, out);
            }
            if let Some(r) = &a.rest {
                collect_names(&r.argument, out);
            }
        }
        BindingPattern::AssignmentPattern(a) => collect_names(&a.left, out),
    }
}

/// The `var`s of a function body and the function declarations in its
/// nested blocks, without entering nested functions or classes.
struct VarCollector<'a> {
    names: Vec<(&'a str, u32)>,
}

impl<'a> Visit<'a> for VarCollector<'a> {
    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind.is_var() {
            for d in &it.declarations {
                collect_names(&d.id, &mut self.names);
            }
        }
        walk::walk_variable_declaration(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, _flags: ScopeFlags) {
        if it.r#type == FunctionType::FunctionDeclaration
            && let Some(id) = &it.id
        {
            self.names.push((id.name.as_str(), id.span.start));
        }
    }

    fn visit_arrow_function_expression(&mut self, _it: &ArrowFunctionExpression<'a>) {}

    fn visit_class(&mut self, _it: &Class<'a>) {}
}
