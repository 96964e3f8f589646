"""Textual bindings built from the studio's table of keys (domain/key_bindings.py), the only place a
key, its label, its action and its tooltip are written: a screen's `BINDINGS` is `bindings_of(its
scope)`, so the footer, F1, the palette and a user keymap all read the same entries."""

from __future__ import annotations

from functools import cache

from textual.binding import Binding, BindingType

from studio.domain.key_bindings import FooterGroup, KeyBinding, scope_named


@cache
def _group(group: FooterGroup) -> Binding.Group:
    return Binding.Group(group.label, compact=group.compact)


def textual_binding(binding: KeyBinding) -> Binding:
    """One entry of the table as Textual binds it (its id lets a keymap give it other keys)."""
    return Binding(
        ",".join(binding.keys),
        binding.action,
        binding.label,
        show=binding.shown,
        tooltip=binding.tooltip,
        id=binding.id,
        group=None if binding.group is None else _group(binding.group),
    )


def bindings_of(scope: str) -> list[BindingType]:
    """The `BINDINGS` of the screen, dialog or widget whose ids start with `scope.`, in the table's order."""
    return [textual_binding(binding) for binding in scope_named(scope).bindings]
