"""Which of our ops an exported graph calls: what the CPU tests count to
prove a patched model runs our kernels inside one graph."""

from collections import Counter

import torch


def op_calls(graph, namespace: str) -> Counter:
    """Calls of each op of `namespace` in an exported graph (a mutating op may
    appear wrapped in auto_functionalized)."""
    calls = Counter()
    for node in graph.nodes:
        target = node.target
        if target is torch.ops.higher_order.auto_functionalized:
            target = node.args[0]
        name = str(target)
        if node.op == "call_function" and name.startswith(namespace + "."):
            calls[name.split(".")[1]] += 1
    return calls
