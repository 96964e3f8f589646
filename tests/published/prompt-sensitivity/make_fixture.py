"""Write the small copy of the prompt-sensitivity study's release kept here (see README.md).

Run from this folder: `python make_fixture.py`. Seeded: the same files every time.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
TOPICS = {
    "dl20": {q: [f"{q[-3:]}{i:04d}" for i in range(8)] for q in ("1030303", "1037496", "1043135")},
    "dl21": {q: [f"msmarco_passage_{i:02d}_{int(q) % 9973 * 7 + i}" for i in range(8)] for q in ("2082", "1129560", "1133485")},
}
GRADES = [3, 3, 2, 2, 1, 0, 0, 0]
MODELS = {"gpt-4o": 0.85, "mistral": 0.6}  # how often the judge follows the reference
PROMPTS_JUDGED = {"0": 0.0, "1": 0.1, "16": -0.05, "17": 0.08}  # each prompt's own shift


def prompts() -> dict[str, object]:
    """Six prompts in the release's shape: its placeholders, quoted system messages, escaped \\n."""

    def three(system: str, binary: str, graded: str, pairwise: str) -> dict[str, object]:
        return {
            "binary": {"system": system, "user": binary},
            "graded": {"system": system, "user": graded},
            "pairwise": {"system": system, "user": pairwise},
        }

    return {
        "0": {
            "participant_name": "human-0",
            **three(
                '"You are a careful TREC assessor."',
                "Is the passage useful for the query? Answer 1 or 0 only.\nQuery:{query}\nPassage:{document}\n",
                "Grade the passage 0, 1, 2 or 3 for the query, a number only.\nQuery:{query}\nPassage:{document}\n",
                "Which passage answers the query better? 1 or 2 only.\nQuestion:\n{query}\nPassage 1:\n{documentA}\nPassage 2:\n{documentB}\n",
            ),
        },
        "1": {
            "participant_name": "human-1",
            **three(
                "You know search evaluation well.",
                "Label the document 1 (relevant) or 0 (not). \\n\\nQuery: {query}\\nPassage: {document}\\nLabel:",
                "Label the document from 0 to 3. \\n\\nQuery: {query}\\nPassage: {document}\\nLabel:",
                "Say Passage A or Passage B.\\n\\nQuery: {query}\\nPassage A: {documentA}\\nPassage B: {documentB}",
            ),
        },
        "16": {
            "participant_name": "LLM-GPT4",
            **three(
                '"You judge whether a passage meets the need of a query.',
                "Query: {query}. Passage: {document}. Respond '1' for yes and '0' for no.",
                '"Query: {query}. Passage: {document}. On a scale of 0 to 3, how relevant is it?',
                "Query: {query}. Passage A: {documentA}. Passage B: {documentB}. Answer 'Passage A' or 'Passage B'",
            ),
        },
        "17": {
            "participant_name": "LLM-GPT4o",
            **three(
                '"You evaluate passages for a query in the format {query:"", doc: ""}."\n',
                "Query: {query}\\nPassage: {document}\\nRelevant? '1' or '0'.",
                '"Query: {query}\\nPassage: {document}\\nScore 0, 1, 2 or 3."',
                '"Query: {query}\\nPassage A: {documentA}\\nPassage B: {documentB}\\nA or B?"\n',
            ),
        },
        "23": {
            "participant_name": "LLM-Llama3.2",
            "binary": {"system": '"Is {query} relevant to {document}?"\n', "user": '"Does this passage answer my question?"\n'},
            "graded": {"system": "\"Score the passage for query '{query}' from 0 to 3.\"\n", "user": '"Is this passage about it?"\n'},
            "pairwise": {"system": "\"Which of passages A and B suits query '{query}'?\"\n", "user": '"Pick the better passage."\n'},
        },
        "27": {
            "participant_name": "LLM-amazon-nova-pro-v1.0",
            "binary": {"system": '"You judge relevance."\n', "user": "\"Is '{document}' relevant to '{query}'? 1 or 0.\"\n"},
            "graded": {"system": '"You score relevance from 0 to 3. [ The generated text has been blocked by our content filters.\n\n', "user": ""},
            "pairwise": {"system": '"Compare two passages."\n', "user": "\"Query: '{query}'. Passage A: '{documentA}'. Passage B: '{documentB}'. A or B.\"\n"},
        },
    }


def reference() -> dict[str, dict[tuple[str, str], int]]:
    rng = random.Random(7)
    found: dict[str, dict[tuple[str, str], int]] = {}
    for collection, topics in TOPICS.items():
        found[collection] = {}
        for qid, docs in topics.items():
            grades = GRADES[:]
            rng.shuffle(grades)
            found[collection].update({(qid, d): g for d, g in zip(docs, grades, strict=True)})
    return found


def judged(rng: random.Random, grade: int, follow: float) -> int:
    """A graded judge's answer: the reference's grade when it follows, else one off."""
    if rng.random() < follow:
        return grade
    return max(0, min(3, grade + rng.choice([-1, 1])))


def pairs(qrels: dict[tuple[str, str], int]) -> list[tuple[str, str, str, str, str]]:
    """(qid, high level, low level, high doc, low doc): the release's top/mid/low strata."""
    level = {3: "top", 2: "mid", 1: "low", 0: "low"}
    found = []
    for qid in dict.fromkeys(q for q, _ in qrels):
        docs = [(d, g) for (q, d), g in qrels.items() if q == qid]
        for high, low in (("top", "mid"), ("top", "low"), ("mid", "low")):
            highs = [d for d, g in docs if level[g] == high]
            lows = [d for d, g in docs if level[g] == low]
            found += [(qid, high, low, a, b) for a in highs for b in lows][:3]
    return found


def write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")


def main() -> None:
    (HERE / "prompts.json").write_text(json.dumps(prompts(), indent=4) + "\n", encoding="utf-8")
    ref = reference()
    for collection, qrels in ref.items():
        year = collection[2:]
        write(HERE / f"data/qrels/qrels.dl{year}-passage.txt", [f"{q} 0 {d} {g}\n" for (q, d), g in qrels.items()])
    for model, follow in MODELS.items():
        for collection, qrels in ref.items():
            for prompt, shift in PROMPTS_JUDGED.items():
                rng = random.Random(f"{model}-{collection}-{prompt}")
                stem = f"Judgements/{model}/{{method}}/{model}_{{method}}_{collection}_{prompt}.txt"
                binary = [f"{q} 0 {d} {int(judged(rng, g, follow + shift) >= 2)}\n" for (q, d), g in qrels.items()]
                graded = [f"{q} 0 {d} {judged(rng, g, follow + shift)}\n" for (q, d), g in qrels.items()]
                answers = []
                for qid, high, low, a, b in pairs(qrels):
                    right = rng.random() < follow + shift
                    first_wins = rng.random() < 0.5  # a judge that sometimes picks the first shown
                    answers.append(f"{qid} {high} {low} regular {a} {b} {'A' if right or first_wins else 'B'}\n")
                    answers.append(f"{qid} {high} {low} swapped {b} {a} {'B' if right or not first_wins else 'A'}\n")
                if (model, collection, prompt) == ("gpt-4o", "dl20", "0"):
                    # The release's pairwise files repeat a block of lines; here one answer differs.
                    repeat = answers[:8]
                    repeat[5] = repeat[5][:-2] + ("A" if repeat[5].endswith("B\n") else "B") + "\n"
                    answers += repeat
                if (model, collection, prompt) == ("gpt-4o", "dl20", "1"):
                    graded.insert(10, graded[3])  # a pair listed twice alike
                    q, it, d, g = graded[6].split()
                    graded.append(f"{q} {it} {d} {(int(g) + 1) % 4}\n")  # and one listed twice differently
                if (model, collection, prompt) == ("mistral", "dl21", "17"):
                    q, it, d, _ = binary[13].split()
                    binary[13] = f"{q} {it} {d} 4\n"  # the stray grade of a binary file
                write(HERE / stem.format(method="binary"), binary)
                write(HERE / stem.format(method="graded"), graded)
                write(HERE / stem.format(method="pairwise"), answers)


if __name__ == "__main__":
    main()
