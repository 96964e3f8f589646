"""The example command lines of docs/cli.md, by command path (`studio.cli.reference` writes the rest
from the command tree)."""

from __future__ import annotations

# Example command lines per command path; `# …` after a line says what it shows. Placeholders in
# capitals (ITEM, FOLDER) stand for values of the reader's own project.
EXAMPLES: dict[str, list[str]] = {
    "studio": [
        "studio --db trec-dl.duckdb list",
        "STUDIO_DB=trec-dl.duckdb studio eval --qrels human",
        "studio --db trec-dl.duckdb --wait 120 export qrels umbrela-smol --out umbrela-smol.qrels",
        "studio --db /archive/trec-dl.duckdb --read-only eval --qrels human  # writes are refused",
    ],
    "studio demo": [
        "studio demo                                # build once, then open the studio on Review",
        "studio demo --db /tmp/demo.duckdb --no-tui # build it there and print the overview",
        "studio demo --rebuild                      # start afresh, dropping edits",
    ],
    "studio tui": [
        "studio --db trec-dl.duckdb tui",
        "studio tui --screen review --ref human --qrels umbrela-smol --person alice",
        "studio tui --audit gold                    # grade an audit's sample blind",
        "studio tui --audit gold --assessor alice   # alice's share of an audit split among assessors",
    ],
    "studio init": [
        "studio init trec-dl.duckdb                 # an empty project (the imports create one too)",
        "studio --db trec-dl.duckdb init --format json",
    ],
    "studio import topics": ["studio import topics topics.dl20.txt"],
    "studio import docs": [
        "studio import docs passages.tsv",
        "studio import docs passages.jsonl.gz --on-duplicate first  # a docid repeated with another text",
    ],
    "studio import qrels": [
        "studio import qrels qrels.dl20-passage.txt --name human",
        "studio import qrels gpt4.qrels --name gpt4 --kind llm --on-duplicate highest",
        "studio import qrels qrels-fixed.txt --name human --replace",
        "studio import qrels binary/gpt-4o/dl20/human-3.txt --name gpt4o-h3 --prompt human-3 --model gpt-4o"
        " --collection dl20 --method binary",
        "studio import qrels qrels.dl20-passage.txt qrels.dl21-passage.txt --name human   # one set of both years",
    ],
    "studio import study": [
        "studio import study Judgements --pattern '{model}_{method}_{collection}_{prompt}.txt' --prompts ps",
        "studio import study Judgements --pattern '{model}_{method}_{collection}_{prompt}.txt' --prompts ps"
        " --on-duplicate first --out-of-scale skip   # repeats and stray grades, named",
        "studio import study gpt4o-binary/ --pattern 'dl20-{prompt}.txt' --model gpt-4o --method binary"
        " --collection dl20",
    ],
    "studio import prompts": [
        "studio import prompts prompts.json --name ps     # human-* authors: people, LLM-*: llm",
        "studio import prompts prompts.json --name ps --groups groups.json   # {participant: group}",
        "studio import prompts my-prompts/ --name mine    # folders ID/METHOD/ with user.txt, meta.json",
    ],
    "studio import preferences": [
        "studio import preferences pairwise/gpt-4o/dl20/human-3.txt --name gpt4o-pw-h3 --prompt human-3"
        " --model gpt-4o --collection dl20",
        "studio import preferences gpt-4o_pairwise_dl20_0.txt --name pw0 --prompt ps/0 --model gpt-4o"
        " --collection dl20 --on-duplicate first   # the release's repeated lines",
    ],
    "studio import run": [
        "studio import run runs/*.gz                # names default to the tag column",
        "studio import run bm25.txt --name lexical-bm25 --replace",
    ],
    "studio import responses": [
        "studio import responses rag24-answers.jsonl",
        "studio import responses answers.jsonl --system my-rag --replace",
        "studio import responses 'generated responses/2019/responses_gpt-4' --system gpt-4  # qid<TAB>text",
    ],
    "studio import answer-labels": [
        "studio import answer-labels 8_binary_responses_lj_gpt-4_2019_gpt-4 --system gpt-4 --method binary"
        " --name genir-binary",
        "studio import answer-labels gen_preferences_8_gpt-4.tsv_2019_gpt-4 --system gpt-4 --method preferences"
        " --name genir-prefs --model gpt-4",
        "studio import answer-labels graded-gpt-4 --system gpt-4 --method graded --name genir-graded --scale 3",
    ],
    "studio import bank": [
        "studio import bank questions.jsonl.gz --name exam   # the layout is read from the content",
        "studio import bank nuggets.tsv --name nuggets --kind nugget",
    ],
    "studio import judgments": ["studio import judgments umbrela-smol.jsonl --name copy"],
    "studio import leaderboard": [
        "studio import leaderboard trec_eval.dl19.txt --name published  # trec_eval -q output, runs one after another",
        "studio import leaderboard bm25.ir_measures.tsv --name bm25-paper --run bm25  # one run's ir_measures -q",
    ],
    "studio import probs": ["studio import probs lara.dl19.csv --name lara  # topic_id,doc_id,prob_yes,prob_no"],
    "studio import graded": [
        "studio import graded graded.jsonl.gz --name copy --bank questions",
        "studio import graded graded.jsonl.gz --name copy-gpt4 --bank questions --llm gpt-4  # one grader of several",
    ],
    "studio import irds": [
        "studio import irds msmarco-passage/trec-dl-2019/judged     # topics, qrels as a label set, judged passages",
        "studio import irds msmarco-passage/trec-dl-2020/judged --name dl20-human --all-docs",
    ],
    "studio list": [
        "studio list                                # the overview",
        "studio list topics --format json",
        "studio list qrels",
        "studio list judges -f tsv",
    ],
    "studio check": ["studio check", "studio --db demo.duckdb check --format json"],
    "studio doctor": ["studio doctor", "studio --db demo.duckdb doctor --format json"],
    "studio refresh": ["studio refresh  # after a judge was killed, or another program wrote to the file"],
    "studio eval": [
        'studio eval --qrels human -m nDCG@10 -m "P(rel=2)@10"',
        "studio eval --qrels human --per-topic --complete -f tsv   # --complete: trec_eval -c",
        "studio eval --qrels human --topics-file condition-a.txt  # trec_eval on the labels cut to those topics",
    ],
    "studio answers": [
        "studio answers --labels genir-binary --labels genir-graded -f json   # one row per system and method",
        "studio answers --labels genir-graded --gain linear --seed 7",
        "studio answers --qrels answers-smol  # deprecated spelling: the mean grade, as before",
    ],
    "studio answers compare": ["studio answers compare --labels genir-binary --labels genir-prefs  # Kendall τ"],
    "studio answers significance": [
        "studio answers significance --labels genir-graded --test randomization --correction bh",
    ],
    "studio answers tournament": [
        "studio answers tournament --labels arena  # judged: studio judge --answers --method pairwise --tournament",
    ],
    "studio answers runs": ["studio answers runs --ref human -m nDCG@10   # needs the embeddings extra"],
    "studio validate": [
        "studio validate --labels gpt4 --ref human   # Best / Acceptable / Unacceptable, agree / tie / disagree",
        "studio validate --labels emb --ref human --seed 3   # an embedding judge: exemplars drawn with the seed",
    ],
    "studio correlate": [
        "studio correlate --ref human --qrels umbrela -m nDCG@10  # on the topics both label",
        "studio correlate --ref human --qrels umbrela -m nDCG@20 -m nDCG@100 -m R@100  # UMBRELA's Table 2",
        "studio correlate --ref manual --qrels post-editing --topics own  # conditions judged on disjoint topics",
        "studio correlate --ref human --qrels umbrela --topic 1108651 --topic 1109707 -f json",
        "studio correlate --ref leaderboard:published --qrels umbrela -m AP  # an imported leaderboard",
    ],
    "studio agree": [
        "studio agree --ref human --qrels umbrela",
        "studio agree --ref human --qrels umbrela --ref-threshold 2 --threshold 2",
    ],
    "studio disagreements": [
        "studio disagreements --ref human --qrels umbrela --limit 20",
        "studio disagreements --ref human --qrels ens --order spread --limit 20  # where the judges disagree most",
    ],
    "studio label": [
        'studio label --qrels umbrela 1001 p1001-07 2 --note "answers the question"',
        "studio label --qrels umbrela 1001 p1001-07 none --person alice   # none removes the label",
    ],
    "studio undo": ["studio undo", "studio undo --qrels umbrela"],
    "studio history": ["studio history --qrels umbrela"],
    "studio fd": [
        "studio fd --qrels human -k 10 -f json",
        "studio fd --qrels human -k 10 --unjudged-only --relevant 2 --ref-measure nDCG@10 --model FOLDER",
    ],
    "studio judge": [
        "studio judge --method umbrela --backend llamacpp --name umbrela-smol   # the bundled SmolLM2 model",
        "studio judge --method umbrela --backend llamacpp --model qwen2.5-7b.gguf --threads 8 --name umbrela-qwen",
        "OPENAI_API_KEY=sk-example studio judge --method umbrela --backend openai "
        "--base-url http://localhost:8000/v1 --model Qwen2.5-7B-Instruct --concurrency 16 --name umbrela-qwen",
        "studio judge --method umbrela --backend simulated --kappa 0.4 --name sim-k04  # a noisy copy of --ref",
        "studio judge --backend simulated --kappa 0.5 --samples 5 --name sim-k5         # 5 seeded answers per pair",
        "studio judge --method pairwise --backend llamacpp --name prefs --topic 1001",
        "studio judge --method umbrela --pool runs:10 --name umbrela-top10   # also holes:10, responses",
        "studio judge --method exam-question --bank questions --name exam-smol",
        "studio judge --method nugget-assign --bank nuggets --name assign",
        "studio judge --method subtopic --bank facets --name sub",
        "studio judge --method embedding --name emb --topic 1001",
        "studio judge --answers --method umbrela --backend llamacpp --name answers-umbrela  # the answers",
        "studio judge --answers --method pairwise --exemplars all --ref human --name answers-prefs",
        "studio judge --answers --method pairwise --backend simulated --position-bias 0.3 --name biased",
        "studio judge --answers --method subtopic --bank answer-subtopics --name answers-sub  # bank made once",
        "studio judge --name exam-smol --stale        # re-grade only what a bank edit made stale",
        "studio judge --failures --name umbrela-smol  # older spelling of studio judges failures",
        "studio judge --backend openai --model Qwen2.5-7B-Instruct --name umbrela-qwen --export-batch pending.jsonl",
    ],
    "studio derive": [
        "studio derive --from exam-smol --bank questions --score exam-binary --min-grade 4 --name exam-binary",
        "studio derive --from assign --bank nuggets --score nugget-weighted-strict --name nuggets-strict",
    ],
    "studio ensemble": [
        "studio ensemble --qrels umbrela-smol --qrels sim1 --qrels sim2 --how majority --name ens --ref human",
    ],
    "studio calibrate": [
        "studio calibrate --qrels umbrela-smol --gold human --name smol-cal",
        "studio calibrate --qrels umbrela-smol --gold human --name smol-ord --method ordinal --folds 5 --seed 0",
    ],
    "studio judges list": ["studio judges list --format json"],
    "studio judges failures": ["studio judges failures umbrela-smol"],
    "studio judges reparse": ["studio judges reparse umbrela-smol"],
    "studio judges extract-answers": ["studio judges extract-answers exam-smol"],
    "studio judges verify": ["studio judges verify exam-smol"],
    "studio judges export-batch": [
        "studio judges export-batch umbrela-qwen --out pending.jsonl --model Qwen2.5-7B-Instruct --pool runs:100",
    ],
    "studio judges import-batch": [
        "studio judges import-batch umbrela-qwen results.jsonl --model Qwen2.5-7B-Instruct --pool runs:100",
    ],
    "studio compare": ["studio compare --ref human --qrels sim --qrels umbrela-smol -m nDCG@10 --resamples 1000"],
    "studio sensitivity run": [
        "studio sensitivity run --prompts ps --collection dl20 --model smollm2 --per-grade 10 --per-category 10",
        "studio sensitivity run --prompts ps --collection dl20 --backend openai --model gpt-4o-mini --method pairwise",
    ],
    "studio sensitivity report": [
        "studio sensitivity report --ref human --ref-relevant 2 --relevant 1 --reference umbrela-gpt4 -f json",
        "studio sensitivity report --ref human --variance population --prompts ps",
        "studio sensitivity report --ref human --ref-relevant 2 --binarise-ref 2 --pool-collections  # Table 4.5",
    ],
    "studio sensitivity": [
        "studio sensitivity --method binary --prompt binary --prompt binary-human --prompt binary-llm --name sens",
        "studio sensitivity --method graded --prompt graded-human --prompt graded-llm --name sens-graded",
    ],
    "studio probe": [
        "studio probe --qrels umbrela-smol --qrels sim --limit 40",
        "studio probe --qrels umbrela-smol --separate --limit 40      # query words, claim, both; start, middle, end",
        "studio probe --qrels umbrela-smol --separate --kind claim --position end -f json",
    ],
    "studio significance": [
        "studio significance --qrels human -m nDCG@10 --test t --correction holm --alpha 0.05",
        "studio significance --qrels umbrela --test randomization --resamples 10000 --seed 1 --format json",
        "studio significance --qrels human --test tukey --correction none --runs bm25,dense,splade",
        "studio significance --ref human --qrels umbrela --test t --correction holm  # do the decisions agree?",
        "studio significance --ref human --qrels umbrela --pair bm25 dense --limit 20  # the labels behind one pair",
    ],
    "studio estimate": [
        "studio estimate --qrels umbrela-smol --gold gold -m nDCG@10 --design topics --level 0.95",
        "studio estimate --qrels umbrela-smol --gold gold --estimator ppi --format json",
        "studio estimate --qrels umbrela-smol --gold gold --decisions --correction holm --alpha 0.05 --ref human",
    ],
    "studio report": [
        "studio report --out report/",
        "studio report --out report/ --ref human -m nDCG@10 --resamples 1000 --with-embeddings",
        "studio report --out report/ --ref human --binarise-ref 2 --pool-collections   # Table 4.5 as the thesis",
    ],
    "studio export qrels": ["studio export qrels umbrela-smol --out umbrela-smol.qrels"],
    "studio export prompts": [
        "studio export prompts ps --out prompts.json",
        "studio export prompts ps --out ps-prompts --folder   # one studio template folder per prompt and method",
    ],
    "studio export judgments": ["studio export judgments umbrela-smol --out umbrela-smol.jsonl"],
    "studio export graded": [
        "studio export graded exam-smol --out graded.jsonl.gz",
        "studio export graded exam-smol --out graded.jsonl.gz --ref human --min-grade 4",
    ],
    "studio export bank": [
        "studio export bank nuggets --out nuggets.jsonl.gz --as rubric",
        "studio export bank nuggets --out nuggets.tsv  # TSV by the name; else the layout it came in",
    ],
    "studio export leaderboard": [
        "studio export leaderboard --qrels human -m nDCG@10 --out board.tsv",
        "studio export leaderboard --qrels human --out -   # to stdout",
        "studio export leaderboard --qrels human --as trec_eval -q --out board.txt  # as trec_eval -q prints it",
        "studio export leaderboard --qrels human -m nDCG@10 -m AP --out board.tex  # booktabs, best in bold",
        "studio export leaderboard --qrels human -m nDCG@10 --out board.tex --significance  # ranx's superscripts",
    ],
    "studio export probs": ["studio export probs umbrela-smol --out umbrela-smol.probs.csv"],
    "studio export responses": [
        "studio export responses --out answers.jsonl",
        "studio export responses --system terse --as rag24 --out terse.rag24.jsonl",
    ],
    "studio bank list": ["studio bank list nuggets --topic 1003"],
    "studio bank add": [
        'studio bank add nuggets 1003 "Jaguars reach 80 km/h in short bursts" --importance vital --note "p1003-02"',
    ],
    "studio bank edit": ['studio bank edit nuggets ITEM "new wording"'],
    "studio bank weight": ["studio bank weight nuggets ITEM okay"],
    "studio bank delete": ["studio bank delete nuggets ITEM"],
    "studio bank merge": ['studio bank merge nuggets ITEM ITEM --text "merged wording"'],
    "studio bank split": ['studio bank split nuggets ITEM "part one" "part two"'],
    "studio bank history": ["studio bank history nuggets"],
    "studio bank report": [
        "studio bank report nuggets --from exam-smol",
        "studio bank report nuggets --from exam-smol --ref human --min-grade 4 --topic 1003 -f json",
    ],
    "studio bank stale": ["studio bank stale --from exam-smol"],
    "studio bank generate": [
        "studio bank generate exam-gen --kind question",
        "studio bank generate facets --kind subtopic --topic 1003 --backend openai --model Qwen2.5-7B-Instruct",
    ],
    "studio bank cover": [
        "studio bank cover questions --from exam-smol -k 10",
        "studio bank cover questions --from exam-smol -k 10 --normalise",
    ],
    "studio bank nuggetize": ["studio bank nuggetize auto-nuggets --ref human --relevant 2"],
    "studio audit plan": [
        "studio audit plan --qrels umbrela-smol --budget 40 --design stratified --strata grade --seed 1 --name gold",
        "studio audit plan --qrels umbrela-smol --pilot human --target-width 0.1 -m nDCG@10 --format json",
    ],
    "studio audit import": [
        "studio audit import gold graded-elsewhere.qrels",
        "studio audit import gold alice-graded.qrels --assessor alice",
    ],
    "studio audit list": ["studio audit list"],
    "studio audit show": ["studio audit show gold"],
    "studio audit pairs": [
        "studio audit pairs gold --remaining --format tsv > to-grade.tsv",
        "studio audit pairs gold --assessor alice --remaining",
    ],
    "studio audit assign": ["studio audit assign gold --assessors alice,bob,carol --overlap 0.2 --seed 0"],
    "studio audit agreement": ["studio audit agreement gold", "studio audit agreement gold --format json"],
    "studio audit adjudicate": ["studio audit adjudicate gold 1003 D42 2"],
    "studio team publish": [
        "studio team publish --to 'host=db.lab dbname=trec sslmode=require' --members alice,bob,carol",
        "studio team publish --to service=trec-team --members alice,bob  # ~/.pg_service.conf",
    ],
    "studio team join": [
        "studio --db alice.duckdb team join 'host=db.lab dbname=trec user=alice'  # password from ~/.pgpass",
        "PGSERVICE=trec-team studio --db alice.duckdb team join ''",
    ],
    "studio team status": ["studio team status --format json   # member, last sync, waiting, quarantined events"],
    "studio team quarantine": [
        "studio team quarantine                     # every copy's report of the events its gates refused",
    ],
    "studio sync": [
        "studio sync                                # push what waits, pull the others' events",
        'studio sync --format json                  # {"pushed": n, "pulled": n, "waiting": n, "offline": …}',
    ],
    "studio audit simulate": [
        "studio audit simulate --ref human --qrels umbrela-smol --budget 5 --design topics --trials 1000 --seed 0",
    ],
    "studio assess plan": [
        "studio assess plan --name rag24 --llm umbrela-smol --pool qrels:human --manual 3 --filtering 3"
        " --post-editing 4 --seed 1",
        "studio assess plan --name rag24 --llm umbrela-gpt4 --pool runs:20 --manual manual.qids --filtering 10"
        " --post-editing 10 --llm-relevant 1 --assessors alice,bob --overlap 0.1",
    ],
    "studio assess list": ["studio assess list"],
    "studio assess show": ["studio assess show rag24", "studio assess show rag24 --format json"],
    "studio assess pairs": [
        "studio assess pairs rag24 --format tsv > to-grade.tsv   # LLM grades only under post-editing",
        "studio assess pairs rag24 --assessor alice --remaining",
    ],
    "studio assess import": ["studio assess import rag24 nist-graded.qrels --assessor nist"],
    "studio assess report": [
        "studio assess report rag24",
        "studio assess report rag24 -m nDCG@10 -m 'P(rel=2)@10' --format json",
        "studio assess report rag24 --live          # τ and the confusion from the LLM set as it is today",
    ],
}
