"""The closed sets of names the studio offers: judging methods, backends, bank item kinds and
importance, the TUI's screens, derived scores. The command line shows and checks them; the TUI
lists them."""

from __future__ import annotations

from enum import StrEnum


class JudgeMethod(StrEnum):
    """How a judge labels a pair (docs/design.md#2-methods)."""

    umbrela = "umbrela"
    binary = "binary"
    graded = "graded"
    pairwise = "pairwise"
    exam_question = "exam-question"
    exam_nugget = "exam-nugget"
    nugget_assign = "nugget-assign"
    subtopic = "subtopic"
    embedding = "embedding"


class BackendName(StrEnum):
    """Who answers a judge's prompts."""

    llamacpp = "llamacpp"
    openai = "openai"
    simulated = "simulated"


class ModelBackend(StrEnum):
    """Backends that run a language model (bank generation and nuggetizing need one)."""

    llamacpp = "llamacpp"
    openai = "openai"


class ConstrainMode(StrEnum):
    """How the openai backend constrains an answer to the method's labels (judges.constraints)."""

    auto = "auto"
    json_schema = "json-schema"
    grammar = "grammar"
    guided = "guided"
    none = "none"


class ItemKind(StrEnum):
    """What a test-bank item is."""

    question = "question"
    nugget = "nugget"
    subtopic = "subtopic"


class Importance(StrEnum):
    """How much a nugget matters (AutoNuggetizer)."""

    vital = "vital"
    okay = "okay"


class ScreenName(StrEnum):
    """The studio's screens, in the order of their function keys (F2–F7)."""

    overview = "overview"
    leaderboard = "leaderboard"
    review = "review"
    bank = "bank"
    judges = "judges"
    answers = "answers"


class SensitivityMethod(StrEnum):
    """The methods prompt sensitivity compares: one grade per pair from one prompt, no test bank."""

    binary = "binary"
    graded = "graded"
    umbrela = "umbrela"


class CalibrationMethod(StrEnum):
    """How `studio calibrate` maps an LLM's grades to people's: monotone regression, or a
    proportional-odds model."""

    isotonic = "isotonic"
    ordinal = "ordinal"


class DerivedScore(StrEnum):
    """How a derived label set scores a document from its item grades (`studio derive --score`)."""

    exam_binary = "exam-binary"
    exam_max = "exam-max"
    exam_mean = "exam-mean"
    rubric_qrels = "rubric-qrels"
    rubric_graded = "rubric-graded"
    subtopic = "subtopic"
    nugget_all = "nugget-all"
    nugget_all_strict = "nugget-all-strict"
    nugget_vital = "nugget-vital"
    nugget_vital_strict = "nugget-vital-strict"
    nugget_weighted = "nugget-weighted"
    nugget_weighted_strict = "nugget-weighted-strict"


class JudgeRunState(StrEnum):
    """Where a judge run stands. Only `finished` is stored (its end time); the others are read
    from the process that created the run, so a judge killed at any point is never taken for a
    finished one nor for one still at work."""

    finished = "finished"
    running = "running"  # its process lives, on this machine
    interrupted = "interrupted"  # killed, cancelled or failed: judged again, it resumes from the call cache
    elsewhere = "running?"  # started on another machine, whose processes this one cannot see


class EnsembleHow(StrEnum):
    """How an ensemble combines its members' grades of a pair (`studio ensemble --how`)."""

    majority = "majority"  # ties: the tied grade nearest the median, then the lower
    mean = "mean"
    median = "median"


class QueueOrder(StrEnum):
    """The order of the review queue (`studio disagreements --order`)."""

    delta_tau = "delta-tau"  # the most leaderboard-changing first
    spread = "spread"  # where the judges (an ensemble's members, a judge's samples) disagree most first


class OnDuplicate(StrEnum):
    """What to do with a document listed twice with different texts."""

    ERROR = "error"
    FIRST = "first"
    LAST = "last"


class OnDuplicateGrade(StrEnum):
    """What to do with a qrels pair listed twice with different grades: refuse the file, as
    trec_eval does, or keep one grade (`highest`: as Clarke's compatibility.py reads qrels)."""

    ERROR = "error"
    FIRST = "first"
    LAST = "last"
    HIGHEST = "highest"


class AnswerLayout(StrEnum):
    """How `studio export responses` writes answers (both are what `studio import responses` reads)."""

    jsonl = "jsonl"  # {"qid", "system", "text", "citations"} a line
    rag24 = "rag24"  # TREC RAG 2024: run_id, topic_id, references, answer sentences


class AnswerMethod(StrEnum):
    """How a label set's verdicts score generated answers (Arabzadeh & Clarke's Gen-IR comparison):
    the layouts `studio import answer-labels` reads, and what each judged answer set holds."""

    binary = "binary"  # relevant or not: share of topics
    graded = "graded"  # a grade: mean gain
    subtopics = "subtopics"  # the query and each subtopic satisfied or not: yes / (k + 1)
    preferences = "preferences"  # against an exemplar passage, both orders: share of topics won
    embedding = "embedding"  # mean cosine to the topic's Best passages
    tournament = "tournament"  # answers against each other, both orders (Bradley–Terry)


# Graded verdicts run 0..DEFAULT_VERDICT_SCALE unless told otherwise (the paper's graded prompt).
DEFAULT_VERDICT_SCALE = 3


class AnswerVerdictLayout(StrEnum):
    """The verdict files `studio import answer-labels --method` reads (the answer methods kept in files)."""

    binary = "binary"
    graded = "graded"
    subtopics = "subtopics"
    preferences = "preferences"


class AnswerGain(StrEnum):
    """The gain of a graded answer verdict: 2^g − 1 (the paper's) or g."""

    exp = "exp"
    linear = "linear"


class ExemplarChoice(StrEnum):
    """What a preference judge of answers compares each answer with: one Best passage drawn per topic
    (seeded), every Best passage, or none: the other systems' answers (a tournament)."""

    one = "one"
    all = "all"
    none = "none"


class BankFormat(StrEnum):
    rubric = "rubric"
    rubric_questions = "rubric-questions"  # the Rubric workbench's older question banks
    nuggetizer = "nuggetizer"
    tsv = "tsv"


class TableFormat(StrEnum):
    json = "json"
    tsv = "tsv"
    csv = "csv"


class LeaderboardLayout(StrEnum):
    """How `studio export leaderboard --as` writes a leaderboard and `studio import leaderboard
    --as` reads one: the studio's own tables, and the layouts of the evaluation tools."""

    json = "json"
    tsv = "tsv"
    csv = "csv"
    trec_eval = "trec_eval"  # `trec_eval -q` output, one block per run
    tot = "tot"  # run measure topic value
    ir_measures = "ir_measures"  # `ir_measures -q` output with the run in front: run topic measure value
    jsonl = "jsonl"  # {"run", "measure", "topic", "value"} a line
    latex = "latex"  # a booktabs table of the means (written only)


DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10", "RR", "R@100")


class StudyMethodChoice(StrEnum):
    """The methods of the prompt-sensitivity study's collections."""

    binary = "binary"
    graded = "graded"
    pairwise = "pairwise"


class VarianceKind(StrEnum):
    """Which variance a spread reports: divisor n − 1 (sample) or n (population)."""

    sample = "sample"
    population = "population"


class StuffingKind(StrEnum):
    """What a stuffing probe puts into a passage."""

    query = "query"
    claim = "claim"
    both = "both"


class StuffingPosition(StrEnum):
    """Where a stuffing probe puts it."""

    start = "start"
    middle = "middle"
    end = "end"


class OutOfScale(StrEnum):
    """What to do with a grade outside its method's scale (a 4 in a binary file): refuse the
    import naming the line, or leave such lines out with a warning naming them."""

    ERROR = "error"
    SKIP = "skip"
