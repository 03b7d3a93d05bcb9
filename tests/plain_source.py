"""Planted bugs: a function's source (a numba function's run as plain Python) with one snippet
replaced (shared by the tests that plant bugs in kernels and in modules' functions)."""
import inspect
import textwrap


def plain(func, old=None, new=None, namespace=None):
    """A function (a compiled one as plain Python), with one snippet of its source replaced if asked
    and its globals overridden by namespace."""
    func = getattr(func, "py_func", func)
    source = textwrap.dedent(inspect.getsource(func))
    source = source[source.index("def "):]  # without the decorator
    if old is not None:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    scope = {**func.__globals__, **(namespace or {})}
    out = {}
    exec(compile(source, "planted", "exec"), scope, out)
    return out[func.__name__]
