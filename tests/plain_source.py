"""Planted bugs in compiled code: a numba function's source run as plain Python, with one snippet
replaced (shared by the tests that plant bugs in kernels)."""
import inspect
import textwrap


def plain(func, old=None, new=None, namespace=None):
    """A compiled function as plain Python, with one snippet of its source replaced if asked and
    its globals overridden by namespace."""
    source = textwrap.dedent(inspect.getsource(func.py_func))
    source = source[source.index("def "):]  # without the decorator
    if old is not None:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    scope = {**func.py_func.__globals__, **(namespace or {})}
    out = {}
    exec(compile(source, "planted", "exec"), scope, out)
    return out[func.__name__]
