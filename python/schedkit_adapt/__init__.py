"""Adaptive jobs: learning when and where to deepen a model (Net2Net) under a time budget.

A training job runs under a scheduler with a time budget; when its allocation goes "up", an agent
decides at each of the next three epochs whether to deepen one of the model's three blocks with
Net2Net's function-preserving DeeperNet. `simulate` trains every action sequence of a scenario once
and caches the outcomes; `learn` trains the agent with REINFORCE on a cache; `evaluate` ranks the
agent's greedy sequence among all of them. See docs/adapt.md.
"""


class AdaptError(Exception):
    """Bad input (a file, a field, an option): the command line prints it on one line and exits 1."""
