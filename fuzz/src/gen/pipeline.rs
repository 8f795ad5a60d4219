//! Random pipelined loops: producer/consumer DAGs through staging buffers, with stages,
//! orders and async stages that the pipeline pass must accept.
//!
//! Statement `k` either copies inputs into its own staging buffer, combines earlier staging
//! buffers into its own, or writes a global output. Stages respect dependencies (a consumer is
//! never in an earlier stage than its producers; in the same stage it comes later in the
//! order); the order is a random topological order of that constraint; async stages are a
//! random subset of the stages used. A statement that reads predicated staging data runs under
//! the conjunction of its producers' conditions (transitively), so it never reads a slot its
//! producer skipped.

use arbitrary::{Result, Unstructured};
use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::{
    AnnValue, Annotations, Buffer, BufferSpec, BufferStore, DataType, Expr, For, ForKind, IRModule, Param, PrimFunc,
    Span, Stmt, StmtKind, Var,
};

use super::GenConfig;

/// The shape of a generated pipeline, for reports and for the minimizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineShape {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
    /// `None` for a symbolic extent.
    pub extent: Option<i64>,
    pub min: i64,
    pub lanes: u16,
    pub threads: i64,
}

const EXTENTS: [i64; 12] = [1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 31, 64];
/// Arrays are sized for the largest extent a symbolic loop is run with in tests.
const SYMBOLIC_CAPACITY: i64 = 64;

/// What statement `k` does.
#[derive(Clone, Debug)]
struct StmtPlan {
    /// Earlier statements whose staging buffers it reads.
    sources: Vec<usize>,
    /// Which input array it reads, if any.
    input: Option<usize>,
    /// Writes a global output instead of a staging buffer.
    sink: bool,
    /// Every `i % modulus != residue` that guards it: its own, and (transitively) those of
    /// the statements whose staging data it reads.
    conditions: Vec<(i64, i64)>,
    constant: f64,
}

/// A random module with one pipelined loop, and its shape.
pub fn pipeline_program(u: &mut Unstructured<'_>, cfg: &GenConfig) -> Result<(IRModule, PipelineShape)> {
    let n = u.int_in_range(1..=cfg.max_stmts.max(1))?;
    let plans = plan_statements(u, n, cfg)?;
    let stages = choose_stages(u, &plans)?;
    let orders = choose_order(u, &plans, &stages)?;
    let async_stages = choose_async(u, &stages)?;
    let extent = if cfg.symbolic_extents && u.ratio(1, 6)? { None } else { Some(*u.choose(&EXTENTS)?) };
    let min = if u.ratio(1, 5)? { *u.choose(&[1i64, 3])? } else { 0 };
    let lanes = if cfg.vectors && u.ratio(1, 5)? { 4 } else { 1 };
    let threads = if cfg.threads && lanes == 1 && u.ratio(1, 5)? { *u.choose(&[2i64, 4])? } else { 1 };
    let inside = u.arbitrary::<bool>()?;
    let shared = u.arbitrary::<bool>()?;
    let shape = PipelineShape { stages, orders, async_stages, extent, min, lanes, threads };
    let module = Builder::new(&shape, &plans, inside, shared).module();
    Ok((module, shape))
}

fn plan_statements(u: &mut Unstructured<'_>, n: usize, cfg: &GenConfig) -> Result<Vec<StmtPlan>> {
    let mut plans: Vec<StmtPlan> = Vec::with_capacity(n);
    for k in 0..n {
        let producers: Vec<usize> = (0..k).filter(|&p| !plans[p].sink).collect();
        let mut sources = Vec::new();
        for p in producers {
            if u.ratio(1, 2)? && sources.len() < 2 {
                sources.push(p);
            }
        }
        let input = if sources.is_empty() || u.ratio(1, 3)? { Some(u.int_in_range(0..=1)?) } else { None };
        let sink = k + 1 == n || u.ratio(1, 3)?;
        let mut conditions: Vec<(i64, i64)> = Vec::new();
        if cfg.predicates && u.ratio(1, 5)? {
            conditions.push((*u.choose(&[2i64, 3])?, u.int_in_range(0..=1)?));
        }
        for &p in &sources {
            for c in &plans[p].conditions {
                if !conditions.contains(c) {
                    conditions.push(*c);
                }
            }
        }
        let constant = f64::from(u.int_in_range(1u8..=8)?) * 0.5;
        plans.push(StmtPlan { sources, input, sink, conditions, constant });
    }
    Ok(plans)
}

fn choose_stages(u: &mut Unstructured<'_>, plans: &[StmtPlan]) -> Result<Vec<i64>> {
    let mut stages: Vec<i64> = Vec::with_capacity(plans.len());
    for plan in plans {
        let floor = plan.sources.iter().map(|&p| stages[p]).max().unwrap_or(0);
        stages.push(floor + i64::from(u.int_in_range(0u8..=2)?));
    }
    Ok(stages)
}

/// A random execution order in which a producer precedes its same-stage consumers.
fn choose_order(u: &mut Unstructured<'_>, plans: &[StmtPlan], stages: &[i64]) -> Result<Vec<i64>> {
    let n = plans.len();
    let mut placed = vec![false; n];
    let mut orders = vec![0i64; n];
    for position in 0..n {
        let ready: Vec<usize> = (0..n)
            .filter(|&k| !placed[k])
            .filter(|&k| plans[k].sources.iter().all(|&p| placed[p] || stages[p] < stages[k]))
            .collect();
        let k = *u.choose(&ready)?;
        placed[k] = true;
        orders[k] = position as i64;
    }
    Ok(orders)
}

fn choose_async(u: &mut Unstructured<'_>, stages: &[i64]) -> Result<Vec<i64>> {
    let mut used: Vec<i64> = stages.to_vec();
    used.sort_unstable();
    used.dedup();
    let mut chosen = Vec::new();
    for s in used {
        if u.arbitrary::<bool>()? {
            chosen.push(s);
        }
    }
    Ok(chosen)
}

/// Builds the IR of a planned pipeline.
struct Builder<'a> {
    shape: &'a PipelineShape,
    plans: &'a [StmtPlan],
    inside: bool,
    i: Var,
    tx: Option<Var>,
    n: Option<Var>,
    inputs: Vec<Buffer>,
    outputs: Vec<Buffer>,
    staging: Vec<Option<Buffer>>,
}

impl<'a> Builder<'a> {
    fn new(shape: &'a PipelineShape, plans: &'a [StmtPlan], inside: bool, shared: bool) -> Self {
        let n = shape.extent.is_none().then(|| Var::new("n", DataType::INT32));
        let len = match (&n, shape.extent) {
            (_, Some(e)) => Expr::int((shape.min + e) * shape.threads * i64::from(shape.lanes)),
            (Some(_), None) => Expr::int((shape.min + SYMBOLIC_CAPACITY) * shape.threads * i64::from(shape.lanes)),
            (None, None) => Expr::int(1),
        };
        let global = |name: String| BufferSpec::new(name, DataType::FLOAT32, vec![len.clone()], "global").build();
        let inputs = (0..2).map(|k| global(format!("In{k}"))).collect();
        let outputs = (0..plans.len()).filter(|&k| plans[k].sink).map(|k| global(format!("Out{k}"))).collect();
        let scope = if shared || shape.threads > 1 { "shared" } else { "local" };
        let staging = plans
            .iter()
            .enumerate()
            .map(|(k, p)| {
                (!p.sink).then(|| {
                    let dims = vec![Expr::int(shape.threads * i64::from(shape.lanes))];
                    BufferSpec::new(format!("S{k}"), DataType::FLOAT32, dims, scope).build()
                })
            })
            .collect();
        let tx = (shape.threads > 1).then(|| Var::new("tx", DataType::INT32));
        Builder { shape, plans, inside, i: Var::new("i", DataType::INT32), tx, n, inputs, outputs, staging }
    }

    fn module(&self) -> IRModule {
        let mut params: Vec<Param> = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|b| Param { var: Var::new(format!("{}_handle", b.name()), DataType::HANDLE), buffer: Some(b.clone()) })
            .collect();
        if let Some(n) = &self.n {
            params.push(Param { var: n.clone(), buffer: None });
        }
        let func = PrimFunc {
            name: "main".into(),
            params,
            attrs: Annotations::new(),
            body: self.body(),
            s_tir: false,
            private: false,
            span: Span::UNKNOWN,
        };
        IRModule { class_name: None, functions: vec![func] }
    }

    fn body(&self) -> Stmt {
        let stmts: Vec<Stmt> = (0..self.plans.len()).map(|k| self.statement(k)).collect();
        let mut loop_body = Stmt::seq(stmts);
        let staging: Vec<&Buffer> = self.staging.iter().flatten().collect();
        if self.inside {
            loop_body = allocate(&staging, loop_body);
        }
        let extent = match (&self.n, self.shape.extent) {
            (Some(n), _) => Expr::var(n),
            (None, e) => Expr::int(e.unwrap_or(1)),
        };
        let mut body = Stmt::synthetic(StmtKind::For(Box::new(For {
            var: self.i.clone(),
            min: Expr::int(self.shape.min),
            extent,
            kind: ForKind::Serial,
            thread: None,
            annotations: self.annotations(),
            body: loop_body,
        })));
        if !self.inside {
            body = allocate(&staging, body);
        }
        if let Some(tx) = &self.tx {
            body = Stmt::synthetic(StmtKind::For(Box::new(For {
                var: tx.clone(),
                min: Expr::int(0),
                extent: Expr::int(self.shape.threads),
                kind: ForKind::ThreadBinding,
                thread: Some("threadIdx.x".into()),
                annotations: Annotations::new(),
                body,
            })));
        }
        body
    }

    fn annotations(&self) -> Annotations {
        let list = |v: &[i64]| AnnValue::List(v.iter().map(|x| AnnValue::Int(*x)).collect());
        let mut a = Annotations::new();
        a.insert(PIPELINE_STAGE, list(&self.shape.stages));
        a.insert(PIPELINE_ORDER, list(&self.shape.orders));
        if !self.shape.async_stages.is_empty() {
            a.insert(PIPELINE_ASYNC_STAGES, list(&self.shape.async_stages));
        }
        a
    }

    /// The element index of this thread and iteration in a global array.
    fn global_index(&self) -> Expr {
        let per_iter = self.shape.threads * i64::from(self.shape.lanes);
        let mut base = Expr::var(&self.i) * Expr::int(per_iter);
        if let Some(tx) = &self.tx {
            base = base + Expr::var(tx);
        }
        self.widen(base)
    }

    /// The index into a staging buffer (this thread's slot).
    fn staging_index(&self) -> Expr {
        let base = self.tx.as_ref().map_or(Expr::int(0), Expr::var);
        self.widen(base)
    }

    fn widen(&self, base: Expr) -> Expr {
        if self.shape.lanes > 1 {
            Expr::ramp(base, Expr::int(1), self.shape.lanes)
        } else {
            base
        }
    }

    fn constant(&self, value: f64) -> Expr {
        let c = Expr::float(value, DataType::FLOAT32);
        if self.shape.lanes > 1 {
            Expr::broadcast(c, self.shape.lanes)
        } else {
            c
        }
    }

    fn statement(&self, k: usize) -> Stmt {
        let plan = &self.plans[k];
        let mut value = self.constant(plan.constant);
        for &p in &plan.sources {
            if let Some(s) = &self.staging[p] {
                value = value + Expr::load(s, vec![self.staging_index()]);
            }
        }
        if let Some(a) = plan.input {
            value = Expr::load(&self.inputs[a], vec![self.global_index()]) * value;
        }
        let (buffer, index) = match &self.staging[k] {
            Some(s) => (s.clone(), self.staging_index()),
            None => (self.output_of(k), self.global_index()),
        };
        let store = Stmt::synthetic(StmtKind::Store(BufferStore { buffer, indices: vec![index], value }));
        match self.condition(k) {
            Some(cond) => Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(store), else_case: None }),
            None => store,
        }
    }

    /// The conjunction of every condition guarding statement `k`.
    fn condition(&self, k: usize) -> Option<Expr> {
        self.plans[k]
            .conditions
            .iter()
            .map(|&(m, r)| {
                Expr::cmp(tirproof_ir::CmpOp::Ne, Expr::floormod(Expr::var(&self.i), Expr::int(m)), Expr::int(r))
            })
            .reduce(Expr::and)
    }

    fn output_of(&self, k: usize) -> Buffer {
        let index = (0..k).filter(|&j| self.plans[j].sink).count();
        self.outputs[index].clone()
    }
}

fn allocate(buffers: &[&Buffer], body: Stmt) -> Stmt {
    buffers.iter().rev().fold(body, |body, b| {
        Stmt::synthetic(StmtKind::AllocBuffer {
            buffer: (*b).clone(),
            annotations: Annotations::new(),
            body: Box::new(body),
        })
    })
}
