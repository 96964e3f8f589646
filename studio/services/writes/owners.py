"""Who owns a label set's labels, and the writes that would go around them.

Most label sets take any write: imports, a judge, a person's edits. Two kinds are owned:

* a **derived** set (an ensemble, a calibration, a bank score) is made from its sources and made
  again whenever they change: a write of its own would be thrown away by the next derivation (or
  make `studio check` fail), so it is refused, naming how the set is made;
* a **campaign's label set** (named after its campaign) holds its assessors' grades, each with the
  campaign's record of who gave it under which condition: a write around it is refused the same way;
* an **audit's gold set** (named after its audit) holds the grades of the audit's sample, each with
  the audit's record of which unit it grades: a label written around the audit is a grade the audit
  does not count, so it is refused, naming the commands that grade the audit.
"""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.services.derived.registry import derivations
from studio.store import Connection
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store


def owned_by(con: Connection, name: str) -> str | None:
    """Why `name` takes no write of a person's own (it is derived, or an audit's gold set); None when it does."""
    made = next((d for d in derivations(con) if d.name == name), None)
    if made is not None:
        return f"{name} is derived ({made.describe()}): its labels follow their sources and are not edited here"
    if audit_store.audit(con, name) is not None:
        return f"{name} is the gold set of audit {name}: its grades go through the audit (studio tui --audit {name})"
    if name in campaign_store.campaign_names(con):
        return f"{name} is campaign {name}'s label set: its grades go through the campaign (studio tui --assess {name})"
    return None


def refuse_owned(con: Connection, names: list[str], write: str) -> None:
    """A UsageError when `write` (e.g. "import --replace") would write to an owned label set."""
    made = {d.name: d for d in derivations(con)}
    campaigns = campaign_store.campaign_names(con)
    for name in names:
        if name in made:
            raise UsageError(
                f"{name} is derived ({made[name].describe()}): its labels follow its sources, so {write} cannot "
                "write to it; change its sources, or give this another name"
            )
        if audit_store.audit(con, name) is not None:
            raise UsageError(
                f"{name} is the gold set of audit {name}: {write} cannot write to it; grade the audit with "
                f"`studio audit import {name} FILE` or in the studio (`studio tui --audit {name}`)"
            )
        if name in campaigns:
            raise UsageError(
                f"{name} is campaign {name}'s label set: {write} cannot write to it; grade the campaign with "
                f"`studio assess import {name} FILE --assessor A` or in the studio (`studio tui --assess {name}`)"
            )


def owned_set_names(con: Connection) -> frozenset[str]:
    """Every owned label set: derived sets, audits' gold sets and campaigns' sets (the engine's
    `owned_sets`, read afresh)."""
    derived = frozenset(d.name for d in derivations(con))
    return derived | audit_store.audit_names(con) | campaign_store.campaign_names(con)
