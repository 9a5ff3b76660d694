"""Scenarios (a time budget and one "up" event) and the simulated clock of a training job.

Time is simulated, not measured: an epoch of a model takes base_epoch_s * (its multiply-adds /
the original model's) / speed, where speed is 1 before the "up" and up_speedup after. Wall-clock
time would make outcomes differ from run to run and machine to machine; this clock makes a
scenario's 64 outcomes a deterministic function of (data, model, seed).
"""

from dataclasses import asdict, dataclass

from . import AdaptError

DECISIONS = 3  # the agent is asked at the start of each of the 3 epochs after the "up"


@dataclass(frozen=True)
class Scenario:
    name: str
    budget_s: float = 400.0     # the job's time limit
    up_at_s: float = 70.0       # when the scheduler raises the allocation
    base_epoch_s: float = 25.0  # one epoch of the original model on the original allocation
    up_speedup: float = 2.0     # the allocation doubles (data-parallel training scales linearly)

    def to_json(self):
        return asdict(self)


# The reference's five adaptation times within its 400 s budget.
SCENARIOS = {name: Scenario(name, up_at_s=t) for name, t in
             [("early", 70.0), ("early-middle", 140.0), ("middle", 200.0), ("middle-late", 270.0),
              ("late", 330.0)]}


def scenario_by_name(name):
    if name not in SCENARIOS:
        raise AdaptError(f"--scenario: unknown scenario '{name}' (known: {', '.join(SCENARIOS)})")
    return SCENARIOS[name]


def scenario_from_json(fields, where):
    try:
        return Scenario(**fields)
    except TypeError as e:
        raise AdaptError(f"{where}: field 'scenario': {e}") from None


class Clock:
    """The job's simulated time. The allocation in force when an epoch starts applies to all of it
    (a job picks up new resources at an epoch boundary, where the agent is also asked)."""

    def __init__(self, scenario, base_multiply_adds):
        self.scenario = scenario
        self.base_multiply_adds = base_multiply_adds
        self.now = 0.0

    @property
    def time_left(self):
        return self.scenario.budget_s - self.now

    @property
    def is_up(self):
        return self.now >= self.scenario.up_at_s

    def epoch_seconds(self, multiply_adds):
        speed = self.scenario.up_speedup if self.is_up else 1.0
        return self.scenario.base_epoch_s * multiply_adds / self.base_multiply_adds / speed

    def fits(self, multiply_adds):
        return self.now + self.epoch_seconds(multiply_adds) <= self.scenario.budget_s

    def advance(self, multiply_adds):
        self.now += self.epoch_seconds(multiply_adds)
