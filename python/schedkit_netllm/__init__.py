"""NetLLM for cluster job scheduling: a language-model policy for the Spark DAG environment, trained
offline (decision-transformer style) from experience pools of an expert scheduler.

Usage: python3 -m schedkit_netllm collect|train|test ...   (docs/netllm.md)
"""


class NetllmError(Exception):
    """Bad input (a pool, a checkpoint, an option): the message is one line naming the file/field."""


__all__ = ["NetllmError"]
