"""A process that edits a project until it is killed: `python edit_driver.py labels|banks DB SEED`.

It prints `ready` once the project is open, then one line per edit, after the edit is committed:

    ack labels EVENT LABEL_SET QID DOCID GRADE       (GRADE `none`: the label removed)
    ack banks OP EVENT FINGERPRINT                   (the bank's newest event, md5 of its items)

A line printed is an edit the project must keep whatever happens next; the fault test kills the
process at a random moment and checks exactly that. Edits are drawn from SEED.
"""

from __future__ import annotations

import hashlib
import random
import sys
from typing import Any

from studio import Project
from studio.domain.errors import UsageError
from studio.services.rubric.editing import BankEditor

PERSON = "fault-driver"
LABEL_SETS = ("human", "umbrela-smol")
BANK = "nuggets"


def bank_fingerprint(items: list[dict[str, Any]]) -> str:
    """md5 of a bank's current items (qid, item, kind, text, importance, position), in a fixed order."""
    rows = sorted((i["qid"], i["item_id"], i["kind"], i["text"], i["importance"] or "", i["position"]) for i in items)
    return hashlib.md5(repr(rows).encode("utf-8")).hexdigest()


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def edit_labels(project: Project, rng: random.Random) -> None:
    pairs = {
        name: sorted((q, d) for q, topic in project.engine.evaluator(name).labels.items() for d in topic.judged)
        for name in LABEL_SETS
    }
    while True:
        name = rng.choice(LABEL_SETS)
        if rng.random() < 0.2:
            event = project.undo(name)
            if event is not None:
                say(f"ack labels {event['event']} {name} {event['qid']} {event['docid']} {_grade(event['grade'])}")
            continue
        qid, docid = rng.choice(pairs[name])
        grade = rng.choice([0.0, 1.0, 2.0, 3.0, None])
        event = project.set_label(name, qid, docid, grade, note="fault test", person=PERSON)
        say(f"ack labels {event['event']} {name} {qid} {docid} {_grade(grade)}")


def _grade(grade: float | None) -> str:
    return "none" if grade is None else f"{grade:g}"


def edit_bank(project: Project, rng: random.Random) -> None:
    editor = BankEditor(project.db, BANK, person=PERSON)
    serial = 0
    while True:
        serial += 1
        items = editor.items()
        item = rng.choice(items)
        same_topic = [i for i in items if i["qid"] == item["qid"] and i["item_id"] != item["item_id"]]
        op = rng.choice(["add", "add", "edit", "edit", "weight", "delete", "merge", "split"])
        text = f"{item['text']} (fault edit {rng.getrandbits(32):08x})"
        try:
            if op == "add":
                editor.add(item["qid"], text, importance=rng.choice(["vital", "okay"]))
            elif op == "edit":
                editor.edit(item["item_id"], text=text)
            elif op == "weight":
                editor.weight(item["item_id"], "okay" if item["importance"] == "vital" else "vital")
            elif op == "delete":
                editor.delete(item["item_id"])
            elif op == "merge" and same_topic:
                editor.merge([item["item_id"], rng.choice(same_topic)["item_id"]], text=text)
            elif op == "split":
                editor.split(item["item_id"], [f"{text} part one", f"{text} part two"])
            else:
                continue
        except UsageError:  # a text drawn twice: nothing was written
            continue
        newest = editor.history(1)[0]["event"]
        say(f"ack banks {op} {newest} {bank_fingerprint(editor.items())}")


def main() -> None:
    mode, path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    with Project.open(path) as project:
        say("ready")
        if mode == "labels":
            edit_labels(project, rng)
        else:
            edit_bank(project, rng)


if __name__ == "__main__":
    main()
