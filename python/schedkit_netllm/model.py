"""The NetLLM policy: Decima's graph encoder turns each observation into tokens (one per
schedulable stage and one executor token), a frozen GPT-2-layout backbone with low-rank adapters
reads return-to-go / stage / executor / action tokens of the last K steps, and two masked heads
choose the stage and the executor count."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from . import NetllmError
from .backbone import Gpt2, Gpt2Config
from .encoder import EMBED, DecimaEncoder, GraphBatch
from .features import JOB_FEATURES, NODE_FEATURES, StepFeatures

STAGE_HEADS = ("token", "last")
ACTION_STAGE_SCALE = 100.0  # action token: [stage index / 100, executors / 50]
ACTION_EXEC_SCALE = 50.0


@dataclass(frozen=True)
class ModelConfig:
    backbone: Gpt2Config = field(default_factory=lambda: Gpt2Config(
        n_embd=128, n_layer=2, n_head=4, n_positions=1024, vocab_size=1))
    lora_rank: int = 16
    lora_alpha: float = 32.0
    lora_dropout: float = 0.05
    window: int = 20            # K: steps of context
    max_stages: int = 100       # stage tokens per step (the first ones in node order)
    max_exec: int = 50          # executor classes 1..max_exec
    max_timestep: int = 4096    # learned timestep embedding; later steps share the last one
    stage_head: str = "token"   # token: a score per stage token; last: max_stages classes read
                                # from the last stage token (NetLLM's released layout)

    def __post_init__(self):
        checks = [(self.lora_rank >= 1, "lora_rank must be >= 1"),
                  (self.lora_alpha > 0, "lora_alpha must be > 0"),
                  (0 <= self.lora_dropout < 1, "lora_dropout must be in [0, 1)"),
                  (self.window >= 1, "window must be >= 1"),
                  (self.max_stages >= 1 and self.max_exec >= 1 and self.max_timestep >= 1,
                   "max_stages, max_exec and max_timestep must be >= 1"),
                  (self.stage_head in STAGE_HEADS, f"stage_head must be one of {STAGE_HEADS}"),
                  (self.backbone.n_positions >= self.max_stages + 3,
                   "backbone n_positions must hold one step (max_stages + 3 tokens)")]
        for ok, message in checks:
            if not ok:
                raise NetllmError(f"model: {message}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        d = dict(d)
        d["backbone"] = Gpt2Config(**d["backbone"])
        return cls(**d)


@dataclass
class StepItem:
    """One decision in a context window. `action` = (stage_idx, exec_class) with exec_class =
    num_exec - 1 (NetLLM's 0-based class); None for the decision being taken."""
    features: StepFeatures
    rtg: float
    timestep: int
    action: tuple | None = None

    def num_stage_tokens(self) -> int:
        return len(self.features.schedulable)

    def num_tokens(self) -> int:
        return self.num_stage_tokens() + 3  # return-to-go, stages, executor, action

    def chosen_job(self, stage_idx: int) -> int:
        """Active-job index of the chosen stage; -1 for a release (-1) or an uncapped index."""
        f = self.features
        return int(f.node_job[f.schedulable[stage_idx]]) if 0 <= stage_idx < len(
            f.schedulable) else -1


def trim_window(items: list[StepItem], n_positions: int) -> list[StepItem]:
    """Drops the oldest steps until the window's tokens fit the backbone's positions."""
    total = sum(i.num_tokens() for i in items)
    start = 0
    while total > n_positions and start < len(items) - 1:
        total -= items[start].num_tokens()
        start += 1
    return items[start:]


@dataclass
class TokenPlan:
    """Where every token of a batch of windows comes from and where the heads read."""
    src: torch.Tensor          # [B, L]: row of the token table
    timestep: torch.Tensor     # [B, L]
    valid: torch.Tensor        # [B, L] bool
    stage_pos: torch.Tensor    # [sum k]: flat position (b * L + t) of each stage token
    stage_step: torch.Tensor   # [sum k]: its step
    stage_rank: torch.Tensor   # [sum k]: its index among its step's stages
    last_stage_pos: torch.Tensor  # [S]
    exec_pos: torch.Tensor     # [E]: flat position of each executor token
    exec_step: torch.Tensor    # [E]: its step
    exec_job: torch.Tensor     # [E]: its chosen job (global index; J = none)
    max_k: int


class NetllmPolicy(nn.Module):
    def __init__(self, config: ModelConfig, backbone: Gpt2 | None = None):
        super().__init__()
        self.config = config
        h = config.backbone.n_embd
        self.encoder = DecimaEncoder()
        self.embed_rtg = nn.Linear(1, h)
        self.embed_stage = nn.Linear(NODE_FEATURES + 3 * EMBED, h)
        self.embed_exec = nn.Linear(JOB_FEATURES + 2 * EMBED, h)
        self.embed_action = nn.Linear(2, h)
        self.embed_timestep = nn.Embedding(config.max_timestep, h)
        self.embed_ln = nn.LayerNorm(h)
        self.backbone = backbone if backbone is not None else Gpt2(config.backbone)
        if self.backbone.config != config.backbone:
            raise NetllmError("model: the backbone's config differs from the model config")
        self.backbone.add_lora(config.lora_rank, config.lora_alpha, config.lora_dropout)
        self.stage_head = nn.Linear(h, 1 if config.stage_head == "token" else config.max_stages)
        self.exec_head = nn.Linear(h, config.max_exec)

    def trainable_parameters(self):
        return [p for p in self.parameters() if p.requires_grad]

    # ---- batching -------------------------------------------------------------------------

    def plan(self, windows: list[list[StepItem]], partial: str, device) -> tuple:
        """Token layout of `windows` (each already trimmed). Every step but a window's last is
        complete; the last is complete (`partial` = "full"), ends after its stage tokens
        ("stages") or after its executor token ("exec"; its action's stage is set)."""
        steps = [item for w in windows for item in w]
        k = np.array([s.num_stage_tokens() for s in steps], dtype=np.int64)
        num_steps, total_k = len(steps), int(k.sum())
        stage_base = np.concatenate([[0], np.cumsum(k)[:-1]]) + num_steps
        num_exec = num_steps - (len(windows) if partial == "stages" else 0)
        exec_row0 = num_steps + total_k          # table: rtg, stages, executors, actions, pad
        action_row0 = exec_row0 + num_exec
        pad_row = action_row0 + num_steps
        src, ts, stage_pos, stage_step, stage_rank, last_pos = [], [], [], [], [], []
        exec_pos, exec_step, exec_job = [], [], []
        s = 0
        lengths = []
        job_base = 0
        for window in windows:  # positions within the row here; flat() makes them flat
            row_src, row_ts = [], []
            for i, item in enumerate(window):
                last = i == len(window) - 1
                with_exec = not last or partial != "stages"
                with_action = not last or partial == "full"
                row_src.append(s)
                stages = list(range(stage_base[s], stage_base[s] + k[s]))
                stage_pos.extend(len(row_src) + j for j in range(k[s]))
                stage_step.extend([s] * k[s])
                stage_rank.extend(range(k[s]))
                row_src.extend(stages)
                last_pos.append(len(row_src) - 1)
                if with_exec:
                    exec_pos.append(len(row_src))
                    exec_step.append(s)
                    job = item.chosen_job(item.action[0])
                    exec_job.append(job_base + job if job >= 0 else -1)
                    row_src.append(exec_row0 + len(exec_step) - 1)
                if with_action:
                    row_src.append(action_row0 + s)
                row_ts.extend([min(item.timestep, self.config.max_timestep - 1)] *
                              (len(row_src) - len(row_ts)))
                job_base += item.features.num_jobs
                s += 1
            lengths.append(len(row_src))
            src.append(row_src)
            ts.append(row_ts)
        length = max(lengths)
        row_of_step = np.repeat(np.arange(len(windows)), [len(w) for w in windows])
        flat = lambda pos, step_idx: [int(row_of_step[t]) * length + p
                                      for p, t in zip(pos, step_idx)]
        t = lambda a: torch.as_tensor(np.asarray(a, dtype=np.int64), device=device)
        exec_job = [j if j >= 0 else job_base for j in exec_job]  # job_base = J: the "none" row
        return TokenPlan(
            src=t([r + [pad_row] * (length - len(r)) for r in src]),
            timestep=t([r + [0] * (length - len(r)) for r in ts]),
            valid=t([[1] * len(r) + [0] * (length - len(r)) for r in src]).bool(),
            stage_pos=t(flat(stage_pos, stage_step)), stage_step=t(stage_step),
            stage_rank=t(stage_rank), last_stage_pos=t(flat(last_pos, range(num_steps))),
            exec_pos=t(flat(exec_pos, exec_step)), exec_step=t(exec_step), exec_job=t(exec_job),
            max_k=int(k.max())), steps

    def encode(self, steps: list[StepItem]):
        """(graph, h_node, h_dag, h_glob) of the steps' observations."""
        graph = GraphBatch.of([s.features for s in steps], self.embed_timestep.weight.device)
        return (graph, *self.encoder(graph))

    def tokens(self, windows: list[list[StepItem]], partial: str = "full", encoded=None):
        """Input embeddings [B, L, n_embd] of `windows` (layout: plan()) with the plan, the graph
        and the steps in order. `encoded`: encode() of those steps, if already computed."""
        device = self.embed_timestep.weight.device
        plan, steps = self.plan(windows, partial, device)
        graph, h_node, h_dag, h_glob = encoded or self.encode(steps)
        node_offset = torch.as_tensor(graph.node_offset[:-1], device=device)
        sched = torch.as_tensor(np.concatenate([s.features.schedulable for s in steps]),
                                device=device) + node_offset[plan.stage_step]
        stage_in = torch.cat([graph.x[sched], h_node[sched], h_dag[graph.node_job[sched]],
                              h_glob[plan.stage_step]], dim=1)
        job_x = torch.cat([graph.job_x, graph.job_x.new_zeros(1, JOB_FEATURES)])
        h_dag_none = torch.cat([h_dag, h_dag.new_zeros(1, EMBED)])
        exec_in = torch.cat([job_x[plan.exec_job], h_dag_none[plan.exec_job],
                             h_glob[plan.exec_step]], dim=1)
        rtg = torch.tensor([[s.rtg] for s in steps], dtype=torch.float32, device=device)
        actions = torch.tensor([[a[0] / ACTION_STAGE_SCALE, (a[1] + 1) / ACTION_EXEC_SCALE]
                                if a is not None else [0.0, 0.0]
                                for a in (s.action for s in steps)], device=device)
        table = torch.cat([self.embed_rtg(rtg), self.embed_stage(stage_in),
                           self.embed_exec(exec_in), self.embed_action(actions),
                           rtg.new_zeros(1, self.config.backbone.n_embd)])
        tokens = self.embed_ln(table[plan.src] + self.embed_timestep(plan.timestep))
        return tokens, plan, graph, steps

    def forward(self, windows: list[list[StepItem]], partial: str = "full"):
        """Returns (stage logits [S, max_k or max_stages] masked with -inf, executor logits
        [E, max_exec] masked with -inf, the plan, the steps in order)."""
        tokens, plan, graph, steps = self.tokens(windows, partial)
        out = self.backbone(tokens, plan.valid).reshape(-1, self.config.backbone.n_embd)
        return self._stage_logits(out, plan, len(steps)), self._exec_logits(out, plan, graph), \
            plan, steps

    def _stage_logits(self, out, plan: TokenPlan, num_steps: int) -> torch.Tensor:
        neg_inf = torch.finfo(out.dtype).min
        if self.config.stage_head == "token":
            scores = self.stage_head(out[plan.stage_pos]).squeeze(1)
            logits = out.new_full((num_steps, plan.max_k), neg_inf)
            return logits.index_put((plan.stage_step, plan.stage_rank), scores)
        logits = self.stage_head(out[plan.last_stage_pos])
        counts = torch.bincount(plan.stage_step, minlength=num_steps)
        classes = torch.arange(logits.shape[1], device=out.device)
        return logits.masked_fill(classes[None] >= counts[:, None], neg_inf)

    def _exec_logits(self, out, plan: TokenPlan, graph: GraphBatch) -> torch.Tensor:
        caps = torch.cat([graph.job_cap, graph.job_cap.new_ones(1)])
        cap = caps[plan.exec_job].clamp(1, self.config.max_exec)
        logits = self.exec_head(out[plan.exec_pos])
        classes = torch.arange(logits.shape[1], device=out.device)
        return logits.masked_fill(classes[None] >= cap[:, None], torch.finfo(out.dtype).min)

    def loss(self, windows: list[list[StepItem]]) -> torch.Tensor:
        """Cross-entropy of the expert's stage + cross-entropy of its executor class, averaged
        over the steps that have them (a release (-1), a stage beyond max_stages or an executor
        class outside the mask carries no loss for that head)."""
        stage_logits, exec_logits, plan, steps = self(windows)
        stages = torch.tensor([s.action[0] for s in steps], device=stage_logits.device)
        classes = torch.tensor([s.action[1] for s in steps], device=stage_logits.device)
        stage_ok = (stages >= 0) & (stages < stage_logits.shape[1])
        stage_ok &= stage_logits.gather(1, stages.clamp(0, stage_logits.shape[1] - 1)[:, None]
                                        ).squeeze(1) > torch.finfo(stage_logits.dtype).min
        exec_classes = classes[plan.exec_step]
        exec_ok = (stages[plan.exec_step] >= 0) & (exec_classes >= 0)
        exec_ok &= exec_classes < exec_logits.shape[1]
        exec_ok &= exec_logits.gather(1, exec_classes.clamp(0, exec_logits.shape[1] - 1)[:, None]
                                      ).squeeze(1) > torch.finfo(exec_logits.dtype).min
        ce = nn.functional.cross_entropy
        zero = stage_logits.sum() * 0
        stage_loss = ce(stage_logits[stage_ok], stages[stage_ok]) if stage_ok.any() else zero
        exec_loss = ce(exec_logits[exec_ok], exec_classes[exec_ok]) if exec_ok.any() else zero
        return stage_loss + exec_loss

class Decoder:
    """Takes the decisions of several episodes in lockstep (one decision each per call) with a
    key/value cache: each call feeds the backbone only the new tokens (the previous action,
    return-to-go and stage tokens; then the executor token) of all episodes in one batch,
    instead of whole windows. The context is at most `window` steps, as in training: when it is
    full the cache is rebuilt from the last window // 2 complete steps (fewer if n_positions
    requires). Within a context the logits equal forward()'s on that window."""

    def __init__(self, policy: NetllmPolicy, greedy: bool, generators: list[torch.Generator]):
        self.policy, self.greedy, self.generators = policy, greedy, list(generators)
        self.steps: list[list[StepItem]] = [[] for _ in generators]  # last `window` complete
        self.cached = [0] * len(generators)  # complete steps in the cache, per episode
        self.cache = None
        self.pending = None                  # [B, 1, n_embd]: the last actions, not yet fed
        self.last_logits = None              # (stage [B, .], executor [B, max_exec])

    def keep(self, rows: list[int]) -> None:
        """Goes on with the episodes `rows` only (the others have ended)."""
        index = torch.as_tensor(rows, dtype=torch.int64)
        self.generators = [self.generators[r] for r in rows]
        self.steps = [self.steps[r] for r in rows]
        self.cached = [self.cached[r] for r in rows]
        if self.cache is not None:
            self.cache = self.cache.rows(index.to(self.cache.count.device))
        if self.pending is not None:
            self.pending = self.pending[index.to(self.pending.device)]

    def fits(self, currents: list[StepItem]) -> bool:
        """True iff `currents` can extend the cache without a rebuild."""
        config = self.policy.config
        count = [0] * len(currents) if self.cache is None else self.cache.count.tolist()
        pending = 0 if self.pending is None else 1
        return all(c + 1 <= config.window and n + pending + cur.num_tokens() <=
                   config.backbone.n_positions
                   for c, n, cur in zip(self.cached, count, currents))

    def _rebuild(self, currents: list[StepItem]) -> None:
        config = self.policy.config
        keep = config.window // 2
        windows = [trim_window(steps[len(steps) - min(len(steps), keep):] + [cur],
                               config.backbone.n_positions)[:-1]
                   for steps, cur in zip(self.steps, currents)]
        self.cache, self.pending = None, None
        self.cached = [len(w) for w in windows]
        if any(windows):  # an empty one is a row of padding
            tokens, plan, _, _ = self.policy.tokens(windows)
            self.cache = self.policy.backbone.extend(tokens, plan.valid)[1]

    def _draw(self, logits: torch.Tensor) -> list[int]:
        return [_choose(row, self.greedy, g) for row, g in zip(logits, self.generators)]

    @torch.no_grad()
    def decide(self, currents: list[StepItem]) -> list[tuple[int, int]]:
        """(stage_idx, exec_class) for each episode's current step, recorded as taken."""
        policy, h = self.policy, self.policy.config.backbone.n_embd
        backbone = policy.backbone
        if not self.fits(currents):
            self._rebuild(currents)
        if self.pending is not None:
            self.cache = backbone.extend(self.pending, cache=self.cache)[1]
        windows = [[c] for c in currents]
        encoded = policy.encode(currents)  # once: the three token kinds below share it
        tokens, plan, graph, _ = policy.tokens(windows, "stages", encoded)
        out, self.cache = backbone.extend(tokens, plan.valid, self.cache)
        stage_logits = policy._stage_logits(out.reshape(-1, h), plan, len(currents))
        for current, stage in zip(currents, self._draw(stage_logits)):
            current.action = (stage, 0)
        tokens, plan, graph, _ = policy.tokens(windows, "exec", encoded)
        exec_tokens = tokens.reshape(-1, h)[plan.exec_pos][:, None]
        out, self.cache = backbone.extend(exec_tokens, cache=self.cache)
        plan.exec_pos = torch.arange(len(currents), device=out.device)
        exec_logits = policy._exec_logits(out.reshape(-1, h), plan, graph)
        for current, exec_class in zip(currents, self._draw(exec_logits)):
            current.action = (current.action[0], exec_class)
        tokens, plan, _, _ = policy.tokens(windows, "full", encoded)
        last = plan.valid.sum(1) - 1
        self.pending = tokens[torch.arange(len(currents)), last][:, None]
        self.steps = [(steps + [c])[-policy.config.window:] for steps, c in
                      zip(self.steps, currents)]
        self.cached = [c + 1 for c in self.cached]
        self.last_logits = (stage_logits, exec_logits)
        return [c.action for c in currents]


def _choose(logits: torch.Tensor, greedy: bool, generator: torch.Generator) -> int:
    if greedy:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.double(), dim=0).cpu()
    return int(torch.multinomial(probs, 1, generator=generator))
