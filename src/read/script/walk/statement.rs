//! Statements: sequences add up, branches take the larger, loops repeat.

use super::*;

impl<'a> Walker<'a, '_> {
    pub(super) fn statements(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        let mut cost = Cost::Zero;
        for s in stmts {
            cost = cost.then(self.statement(s));
        }
        cost
    }

    pub(super) fn block(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        self.open_scope(false);
        self.hoist_block(stmts);
        let cost = self.statements(stmts);
        self.close_scope();
        cost
    }

    pub(super) fn looped(&self, kind: &'static str, at: u32) -> impl FnOnce() -> String + '_ {
        move || How::new("runs inside a `{name}` loop ({at})", kind, at).render(self)
    }

    pub(super) fn statement(&mut self, s: &'a Statement<'a>) -> Cost {
        match s {
            Statement::BlockStatement(b) => self.block(&b.body),
            Statement::BreakStatement(_)
            | Statement::ContinueStatement(_)
            | Statement::DebuggerStatement(_)
            | Statement::EmptyStatement(_) => Cost::Zero,
            Statement::DoWhileStatement(d) => {
                let body = self.statement(&d.body);
                let (_, test) = self.expr(&d.test);
                body.then(test)
                    .repeated(self.looped("do … while", d.span.start))
            }
            Statement::ExpressionStatement(e) => self.expr(&e.expression).1,
            Statement::ForInStatement(f) => {
                self.for_each(&f.left, &f.right, &f.body, "for … in", f.span.start)
            }
            Statement::ForOfStatement(f) => {
                self.for_each(&f.left, &f.right, &f.body, "for … of", f.span.start)
            }
            Statement::ForStatement(f) => {
                self.open_scope(false);
                let mut cost = Cost::Zero;
                match &f.init {
                    Some(ForStatementInit::VariableDeclaration(d)) => {
                        if !d.kind.is_var() {
                            for decl in &d.declarations {
                                self.declare_pattern(&decl.id);
                            }
                        }
                        cost = self.variable_declaration(d);
                    }
                    Some(init) => cost = self.expr(init.to_expression()).1,
                    None => {}
                }
                let mut each = Cost::Zero;
                if let Some(t) = &f.test {
                    each = each.then(self.expr(t).1);
                }
                each = each.then(self.statement(&f.body));
                if let Some(u) = &f.update {
                    each = each.then(self.expr(u).1);
                }
                self.close_scope();
                cost.then(each.repeated(self.looped("for", f.span.start)))
            }
            Statement::IfStatement(i) => {
                let (_, test) = self.expr(&i.test);
                let then = self.statement(&i.consequent);
                let otherwise = i
                    .alternate
                    .as_ref()
                    .map_or(Cost::Zero, |a| self.statement(a));
                test.then(then.or(otherwise))
            }
            Statement::LabeledStatement(l) => self.statement(&l.body),
            Statement::ReturnStatement(r) => match &r.argument {
                Some(a) => {
                    let (v, c) = self.expr(a);
                    if let Some(ctx) = self.fns.last_mut() {
                        ctx.returns.join_owned(v);
                    }
                    c
                }
                None => Cost::Zero,
            },
            Statement::SwitchStatement(s) => self.switch(s),
            Statement::ThrowStatement(t) => {
                let (v, c) = self.expr(&t.argument);
                let how = How::at("runs after being thrown ({at})", t.span.start);
                c.then(self.escape(&v, t.span.start, &how, false))
            }
            Statement::TryStatement(t) => {
                let mut cost = self.block(&t.block.body);
                if let Some(h) = &t.handler {
                    self.open_scope(false);
                    if let Some(p) = &h.param {
                        self.declare_pattern(&p.pattern);
                        cost = cost.then(self.bind(&p.pattern, &Vals::unknown(), true));
                    }
                    cost = cost.then(self.block(&h.body.body));
                    self.close_scope();
                }
                if let Some(f) = &t.finalizer {
                    cost = cost.then(self.block(&f.body));
                }
                cost
            }
            Statement::WhileStatement(w) => {
                let (_, test) = self.expr(&w.test);
                let body = self.statement(&w.body);
                test.then(body).repeated(self.looped("while", w.span.start))
            }
            Statement::WithStatement(w) => {
                self.opaque("`with`", w.span.start);
                let (_, c) = self.expr(&w.object);
                c.then(self.statement(&w.body))
            }
            Statement::VariableDeclaration(d) => self.variable_declaration(d),
            Statement::FunctionDeclaration(f) => {
                // A declaration its scope hoisted is walked by `settle`.
                if !self.declared.contains_key(&f.span.start) {
                    self.define(FnNode::Function(f));
                }
                Cost::Zero
            }
            Statement::ClassDeclaration(c) => {
                // Constructing the script's own class gives an object of its.
                if let Some(id) = &c.id {
                    self.join_binding(id.span.start, &Vals::of(Value::Plain));
                }
                self.class(c)
            }
            _ => {
                self.opaque("syntax pace-hook does not read", s.span().start);
                Cost::Zero
            }
        }
    }

    pub(super) fn variable_declaration(&mut self, d: &'a VariableDeclaration<'a>) -> Cost {
        let mut cost = Cost::Zero;
        for decl in &d.declarations {
            let vals = match &decl.init {
                Some(init) => {
                    let (v, c) = self.expr(init);
                    cost = cost.then(c);
                    v
                }
                None => Vals::unknown(),
            };
            cost = cost.then(self.bind(&decl.id, &vals, true));
        }
        cost
    }

    pub(super) fn for_each(
        &mut self,
        left: &'a ForStatementLeft<'a>,
        right: &'a Expression<'a>,
        body: &'a Statement<'a>,
        kind: &'static str,
        at: u32,
    ) -> Cost {
        self.open_scope(false);
        let (list, once) = self.expr(right);
        // `for (const a of document.querySelectorAll('a'))`: elements of one
        // tag; anything else gives page data.
        let item = match list.iter().next() {
            Some(Value::Element(t))
                if kind == "for … of"
                    && !t.is_empty()
                    && list.iter().all(|v| v == &Value::Element(t.clone())) =>
            {
                Vals::of(Value::Element(t.clone()))
            }
            // `for (const f of fs)` of `[el.loadMore]`, or of a page's own
            // list: a page's method, possibly.
            _ if kind == "for … of" && self.may_hold_page_functions(&list) => {
                let mut item = Vals::unknown();
                item.add(Value::Unlisted);
                item
            }
            _ => Vals::unknown(),
        };
        let mut each = Cost::Zero;
        match left {
            ForStatementLeft::VariableDeclaration(d) => {
                for decl in &d.declarations {
                    if !d.kind.is_var() {
                        self.declare_pattern(&decl.id);
                    }
                    each = each.then(self.bind(&decl.id, &item, true));
                }
            }
            target => {
                each = each.then(self.assign(target.to_assignment_target(), &item, at));
            }
        }
        each = each.then(self.statement(body));
        self.close_scope();
        once.then(each.repeated(self.looped(kind, at)))
    }

    pub(super) fn switch(&mut self, s: &'a SwitchStatement<'a>) -> Cost {
        let (_, mut cost) = self.expr(&s.discriminant);
        self.open_scope(false);
        for case in &s.cases {
            self.hoist_block(&case.consequent);
        }
        let mut bodies = Vec::new();
        for case in &s.cases {
            if let Some(t) = &case.test {
                cost = cost.then(self.expr(t).1);
            }
            bodies.push((self.statements(&case.consequent), ends(&case.consequent)));
        }
        self.close_scope();
        // Each case runs on into the next until one ends in `break`,
        // `return`, `throw` or `continue`.
        let mut best = Cost::Zero;
        for start in 0..bodies.len() {
            let mut run = Cost::Zero;
            for (body, ends) in &bodies[start..] {
                run = run.then(body.clone());
                if *ends {
                    break;
                }
            }
            best = best.or(run);
        }
        cost.then(best)
    }

    pub(super) fn class(&mut self, c: &'a Class<'a>) -> Cost {
        let mut cost = Cost::Zero;
        let at = c.span.start;
        if let Some(h) = &c.heritage {
            let (v, hc) = self.expr(&h.expression);
            let how = How::at("runs as a class's parent ({at})", at);
            cost = cost.then(hc).then(self.escape(&v, at, &how, false));
        }
        // A method's `this` is an instance: an object of the script's, or,
        // for a class that extends another (`HTMLElement`), one the
        // analysis does not know.
        let mut instance = Vals::of(Value::Plain);
        if c.heritage.is_some() {
            instance.add(Value::Unknown);
        }
        self.open_scope(false);
        for el in &c.body.body {
            match el {
                ClassElement::MethodDefinition(m) => {
                    let (key, kc) = self.property_key(&m.key, m.computed, true);
                    cost = cost.then(kc);
                    if let Key::Name(n, _) = &key {
                        self.note_member_name(n);
                    }
                    self.method(m.value.span.start, &instance);
                    let f = self.define(FnNode::Function(&m.value));
                    let how = How::at(
                        "runs in a class method ({at}), whose calls the analysis does not follow",
                        m.span.start,
                    );
                    let saved = std::mem::replace(&mut self.method_this, true);
                    cost = cost.then(self.escape(&Vals::of(f), m.span.start, &how, false));
                    self.method_this = saved;
                }
                ClassElement::PropertyDefinition(p) => {
                    let (key, kc) = self.property_key(&p.key, p.computed, true);
                    cost = cost.then(kc);
                    if let Key::Name(n, _) = &key {
                        self.note_member_name(n);
                    }
                    if let Some(v) = &p.value {
                        cost = cost.then(self.field(v, p.r#static, p.span.start));
                    }
                }
                ClassElement::AccessorProperty(p) => {
                    cost = cost.then(self.property_key(&p.key, p.computed, true).1);
                    if let Some(v) = &p.value {
                        cost = cost.then(self.field(v, p.r#static, p.span.start));
                    }
                }
                ClassElement::StaticBlock(b) => {
                    self.open_scope(true);
                    cost = cost.then(self.function_body(&b.body));
                    self.close_scope();
                }
                ClassElement::TSIndexSignature(_) => {}
            }
        }
        self.close_scope();
        cost
    }

    pub(super) fn field(&mut self, v: &'a Expression<'a>, is_static: bool, at: u32) -> Cost {
        let (vals, c) = self.expr(v);
        let c = if is_static {
            c
        } else {
            c.repeated(|| {
                How::at("runs each time its class is constructed ({at})", at).render(self)
            })
        };
        let how = How::at(
            "is stored in a class field ({at}), where the analysis cannot follow it",
            at,
        );
        c.then(self.escape(&vals, at, &how, false))
    }
}
