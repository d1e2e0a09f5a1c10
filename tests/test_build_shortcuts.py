"""The shortcuts that keep a build fast give what the long way gives: the bytecode count
of a variant (dispatch._instructions), the builtins taken as pure (registry.pure_builtins,
pipeline._pure_names)."""

import builtins
import dis
import json
from types import SimpleNamespace

from s2sad import dispatch, pipeline, registry


def _code_objects(module):
    import inspect
    found = [compile(inspect.getsource(module), module.__file__, "exec")]
    for code in found:
        found += [c for c in code.co_consts if hasattr(c, "co_code")]
    return found


def test_instructions_are_counted_as_dis_counts_them():
    codes = _code_objects(json.decoder) + _code_objects(pipeline)
    assert len(codes) > 50
    for code in codes:
        count = len(list(dis.get_instructions(code)))
        assert dispatch._instructions(code, 10 ** 6) == count, code.co_name
        assert dispatch._instructions(code, 20) == min(count, 20)


def _names(locals=(), globals=()):
    imports = SimpleNamespace(helpers={}, helper_functions=dict)
    return pipeline._pure_names(SimpleNamespace(locals=set(locals), globals=dict.fromkeys(
        globals)), imports)


def test_the_pure_builtins_are_those_the_table_says_now(monkeypatch):
    assert {"len", "abs", "float", "range"} <= _names() and "print" not in _names()
    monkeypatch.setattr(registry, "_FACTS", dict(registry._FACTS))
    monkeypatch.setattr(registry, "_DERIVED", dict(registry._DERIVED))
    assert "divmod" not in _names()
    registry.deffacts(builtins.divmod, pure=True)  # (the table changed: found again)
    assert "divmod" in _names()


def test_a_builtin_replaced_or_a_name_of_the_user_s_is_not_the_pure_one(monkeypatch):
    assert "len" in _names()
    monkeypatch.setattr(builtins, "len", lambda x: 0)
    assert "len" not in _names() and "abs" in _names()
    monkeypatch.undo()
    assert "abs" not in _names(locals={"abs"}) and "sum" not in _names(globals={"sum"})
