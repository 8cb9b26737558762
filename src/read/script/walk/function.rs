//! The script's own functions: each body is walked once where it is
//! defined into a summary, a call adds the summary, and a function handed to
//! code the analysis does not see counts as called any number of times.

use super::*;

impl<'a> Walker<'a, '_> {
    /// Walk a function where it is defined, update its summary, and give its
    /// value.
    pub(super) fn define(&mut self, node: FnNode<'a>) -> Value {
        let id = node.id();
        if self.nodes.insert(id, node).is_none() && self.reads.seen(Kept::Node, id) {
            self.stale = true;
        }
        self.fns.push(FnCtx {
            id,
            arrow: matches!(node, FnNode::Arrow(_)),
            returns: Vals::none(),
            uses_arguments: false,
        });
        self.open_scope(true);
        if let FnNode::Function(f) = node
            && f.r#type == FunctionType::FunctionExpression
            && let Some(name) = &f.id
        {
            self.declare(name.name.as_str(), name.span.start, false);
            self.join_binding(name.span.start, &Vals::of(Value::Func(id)));
        }
        let params = node.params();
        for p in &params.items {
            self.declare_pattern(&p.pattern);
        }
        if let Some(rest) = &params.rest {
            self.declare_pattern(&rest.rest.argument);
        }
        let mut cost = Cost::Zero;
        for p in &params.items {
            let mut vals = Vals::none();
            if let Some(init) = &p.initializer {
                let (v, c) = self.expr(init);
                cost = cost.then(c);
                vals = v;
            }
            cost = cost.then(self.bind(&p.pattern, &vals, true));
        }
        match node {
            FnNode::Function(f) => {
                if let Some(body) = &f.body {
                    cost = cost.then(self.function_body(&body.statements));
                }
            }
            FnNode::Arrow(a) => match &a.body {
                ArrowFunctionBody::FunctionBody(body) => {
                    cost = cost.then(self.function_body(&body.statements));
                }
                body => {
                    let e = body.to_expression();
                    let (v, c) = self.expr(e);
                    cost = cost.then(c);
                    let ctx = self.fns.last_mut().expect("a function is open");
                    ctx.returns.join_owned(v);
                }
            },
        }
        self.close_scope();
        let ctx = self.fns.pop().expect("pushed above");
        // Any change to a summary this round already read makes it stale,
        // a new wording of the same cost included.
        let mut changed_read = false;
        match self.summaries.get_mut(&id) {
            None => {
                self.summaries.insert(
                    id,
                    Summary {
                        cost,
                        returns: ctx.returns,
                        uses_arguments: ctx.uses_arguments,
                    },
                );
                self.changed = true;
                changed_read = true;
            }
            Some(s) => {
                if cost.level() > s.cost.level() {
                    self.changed = true;
                }
                if cost.level() >= s.cost.level() && cost != s.cost {
                    s.cost = cost;
                    changed_read = true;
                }
                if s.returns.join(&ctx.returns) {
                    self.changed = true;
                    changed_read = true;
                }
                if ctx.uses_arguments && !s.uses_arguments {
                    s.uses_arguments = true;
                    self.changed = true;
                    changed_read = true;
                }
            }
        }
        if changed_read && self.reads.seen(Kept::Summary, id) {
            self.stale = true;
        }
        Value::Func(id)
    }

    /// The syntax of the script's function `id`, once its declaration has
    /// been hoisted or its definition walked.
    pub(super) fn node(&self, id: u32) -> Option<FnNode<'a>> {
        self.reads.note(Kept::Node, id);
        self.nodes.get(&id).copied()
    }

    /// What one call of the script's function `id` does, once its body has
    /// been walked.
    pub(super) fn summary(&self, id: u32) -> Option<&Summary> {
        self.reads.note(Kept::Summary, id);
        self.summaries.get(&id)
    }

    /// Walk the body of function declaration `id` now, if it has not been
    /// walked this round and its scope is open here: a call does this
    /// after binding its arguments, so that the body reads the parameters
    /// with the values the call gives them. Walking it where it is written
    /// (before the calls below it) read them empty, and every script that
    /// declared a function and then called it took a second round. The
    /// body is walked as it would be where it is written: with the scopes
    /// around the declaration only, in its environment. Recursion finds it
    /// walked (or being walked) and reads its summary as before.
    pub(super) fn settle(&mut self, id: u32) {
        let Some(Some((at, serial, env))) = self.declared.get(&id).copied() else {
            return;
        };
        if self.scopes.get(at).map(|s| s.serial) != Some(serial) {
            return;
        }
        let Some(node) = self.nodes.get(&id).copied() else {
            return;
        };
        self.declared.insert(id, None);
        let inner = self.scopes.split_off(at + 1);
        let (env_here, concat_here) = (self.env, self.concat);
        self.env = env;
        self.concat = 0;
        self.define(node);
        self.env = env_here;
        self.concat = concat_here;
        self.scopes.extend(inner);
    }

    pub(super) fn function_body(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        self.hoist_vars(stmts);
        self.hoist_block(stmts);
        self.statements(stmts)
    }

    /// Call the script's function `id` with `args` from `site`.
    pub(super) fn call_func(
        &mut self,
        id: u32,
        args: &[Arg<'a>],
        site: &CallSite,
        through: bool,
    ) -> (Vals, Cost) {
        let Some(node) = self.node(id) else {
            return (Vals::unknown(), Cost::Zero);
        };
        let params = node.params();
        let spread_at = args.iter().position(|a| a.spread).unwrap_or(args.len());
        let mut cost = Cost::Zero;
        for (i, p) in params.items.iter().enumerate() {
            let vals = if i < spread_at {
                args.get(i).map(|a| a.vals.clone()).unwrap_or_default()
            } else {
                Vals::unknown()
            };
            cost = cost.then(self.bind(&p.pattern, &vals, false));
        }
        if !matches!(node, FnNode::Arrow(_)) {
            let this = if site.new {
                Vals::of(Value::Plain)
            } else {
                site.receiver.clone()
            };
            self.join_this(id, &this);
        }
        self.settle(id);
        let uses_arguments = self.summary(id).is_some_and(|s| s.uses_arguments);
        // Arguments the parameters do not name can still be reached, through
        // `arguments` or a rest parameter: they escape.
        let named = if uses_arguments {
            0
        } else {
            params.items.len().min(spread_at)
        };
        for a in args.iter().skip(named) {
            let how = How::new(
                "runs as an argument of `{name}` ({at}), which the analysis follows only through named parameters",
                &site.name,
                site.at,
            );
            cost = cost.then(self.escape(&a.vals, site.at, &how, false));
        }
        let Some(summary) = self.summary(id) else {
            return (Vals::unknown(), cost);
        };
        // An async function or a generator returns an object of the
        // platform's, whatever its `return` says.
        // `new` of the script's function gives its instance, an object of
        // the script's whose methods are walked where they are written.
        let mut returns = summary.returns.clone();
        returns.add(if site.new {
            Value::Plain
        } else {
            Value::Unknown
        });
        let mut once = summary.cost.clone();
        if through && !site.name.is_empty() {
            once = once.through(|| format!("through `{}` at {}", site.name, self.pos(site.at)));
        }
        (returns, cost.then(once))
    }

    /// A value goes where the analysis cannot follow it: code it does not
    /// model may call it any number of times. `how` completes "`fetch` at
    /// 1:10 …".
    /// The script's function `id` handed to code that calls it any number
    /// of times with an accumulator first (`reduce`): `initial`, or what
    /// the last call returned; its other arguments are page data.
    pub(super) fn accumulate(&mut self, id: u32, initial: &Vals, how: &How<'_>) -> Cost {
        let Some(node) = self.node(id) else {
            return Cost::Zero;
        };
        let mut first = initial.clone();
        if let Some(s) = self.summary(id) {
            first.join(&s.returns);
        }
        for (i, p) in node.params().items.iter().enumerate() {
            let vals = if i == 0 {
                first.clone()
            } else {
                Vals::unknown()
            };
            self.bind(&p.pattern, &vals, false);
        }
        if let Some(rest) = &node.params().rest {
            self.bind(&rest.rest.argument, &Vals::unknown(), false);
        }
        self.settle(id);
        self.summary(id)
            .map_or(Cost::Zero, |s| s.cost.clone())
            .repeated(|| how.render(self))
    }

    pub(super) fn escape(&mut self, vals: &Vals, at: u32, how: &How<'_>, reads_only: bool) -> Cost {
        let mut cost = Cost::Zero;
        for v in vals.iter() {
            cost = cost.or(self.escape_one(v, at, how, reads_only));
        }
        cost
    }

    pub(super) fn escape_one(
        &mut self,
        v: &Value,
        at: u32,
        how: &How<'_>,
        reads_only: bool,
    ) -> Cost {
        // "… at 1:10 runs as a callback (1:3)" said of a value: "a
        // function that can start requests, used as a callback (1:3)".
        let opaque_what = |this: &Self, w: &str| {
            let how = how.render(this);
            let how = match how.strip_prefix("runs ") {
                Some(rest) => format!("used {rest}"),
                None => how.strip_prefix("is ").unwrap_or(&how).to_owned(),
            };
            format!("{w}, {how}")
        };
        match v {
            // Printed or read for its keys, a function is not called.
            Value::Sink(_) if reads_only => Cost::Zero,
            Value::Sink(sink) => self.request(sink.label, at).repeated(|| how.render(self)),
            Value::Func(id) => {
                // Code the analysis does not see may call it with anything,
                // and with a page object as `this` (jQuery's `each` gives
                // each element), unless it is an object's method.
                let mut arrow = false;
                if let Some(node) = self.node(*id) {
                    for p in &node.params().items {
                        self.bind(&p.pattern, &Vals::unknown(), false);
                    }
                    arrow = matches!(node, FnNode::Arrow(_));
                }
                // An arrow's `this` is its definer's.
                if !self.method_this && !arrow {
                    self.join_this(*id, &Vals::unknown());
                }
                self.settle(*id);
                self.summary(*id)
                    .map_or(Cost::Zero, |s| s.cost.clone())
                    .repeated(|| how.render(self))
            }
            Value::Via(inner) | Value::BindOf(inner) => self.escape_one(inner, at, how, reads_only),
            Value::Opaque(label) => {
                let what = opaque_what(self, label);
                self.opaque(&what, at);
                Cost::Zero
            }
            Value::Effect(e) => match e {
                Effect::LoadsEachArgument(sink, _)
                | Effect::LoadsEachListed(model::Listed { sink, .. })
                | Effect::Dispatches(sink) => {
                    self.request(sink.label, at).repeated(|| how.render(self))
                }
                Effect::Timer(label)
                | Effect::Markup(label, _)
                | Effect::DescribesProperty(label)
                | Effect::InsertsContent(label, _) => {
                    let what = opaque_what(self, label);
                    self.opaque(&what, at);
                    Cost::Zero
                }
                Effect::SetsAttribute { .. }
                | Effect::SetsAttributeNode(_)
                | Effect::SetsMember
                | Effect::Commands(_)
                | Effect::CallsArgument { .. }
                | Effect::GetsMember
                | Effect::RunsInPage(_)
                | Effect::RunsInEveryPage
                | Effect::PollsInPage(_)
                | Effect::Devtools(_)
                | Effect::OpensWith(..) => {
                    let what = opaque_what(self, "a function that can start requests");
                    self.opaque(&what, at);
                    Cost::Zero
                }
                Effect::Nothing
                | Effect::MakesBlobUrl
                | Effect::ParsesMarkup(_)
                | Effect::CopiesProperties(_)
                | Effect::SetsProperties(_)
                | Effect::SetsStyle
                | Effect::Fulfills
                | Effect::CreatesElement(_)
                | Effect::CreatesAttribute(_)
                | Effect::NewElement(..)
                | Effect::Accumulates
                | Effect::CssThen(..)
                | Effect::WalksNodes(_)
                | Effect::Selects(_)
                | Effect::Returns(_) => Cost::Zero,
                // `codes.map(String.fromCharCode)`: text from what the
                // analysis cannot read.
                Effect::Text(_) => {
                    let what = "text made by a function handed over, which may be any URL";
                    let found = self.found(what, at);
                    self.made_text.insert((at, what.to_owned()), found);
                    Cost::Zero
                }
            },
            Value::Obj(o) if model::called(*o).is_some() => {
                let sink = model::called(*o).expect("checked");
                self.request(sink.label, at).repeated(|| how.render(self))
            }
            Value::Obj(o) if model::unsafe_to_hand_over(*o) && !reads_only => {
                let what = opaque_what(self, model::obj_name(*o));
                self.opaque(&what, at);
                Cost::Zero
            }
            Value::Global if !reads_only => {
                let what = opaque_what(self, "the global object");
                self.opaque(&what, at);
                Cost::Zero
            }
            Value::Any => {
                let what = opaque_what(self, "a value the analysis lost track of");
                self.opaque(&what, at);
                Cost::Zero
            }
            _ => Cost::Zero,
        }
    }
}
