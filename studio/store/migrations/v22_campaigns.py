"""Version 22: assessment campaigns with the LLM in the loop.

A campaign puts an LLM label set's pool before people under three conditions, each on its own
topics: fully manual (the whole pool, no LLM grade shown), manual with filtering (the pairs the
LLM calls relevant, no LLM grade shown) and post-editing (the same pairs grouped by the LLM's
grade, which is shown). It keeps the pool as drawn (each pair with the LLM's grade then and its
role), which assessor is given which pair, and every grade each assessor gave, with the seconds it
took and whether the LLM's grade was on screen: what the LLM's help cost and what it changed.
"""

VERSION = 22

# A studio reading a file at the version before this one needs nothing this version adds: a
# read-only file not yet upgraded to it is read as it is (it holds no campaign).
READERS_NEED = False

SQL = """
        CREATE SEQUENCE campaign_ids START 1;
        CREATE TABLE campaigns (
            campaign_id   INTEGER PRIMARY KEY,
            name          VARCHAR NOT NULL UNIQUE,   -- also its label set's name
            llm           VARCHAR NOT NULL,          -- the LLM label set
            pool          VARCHAR NOT NULL,          -- qrels:NAME | runs:K
            llm_relevant  DOUBLE NOT NULL,           -- an LLM grade below it is non-relevant
            overlap       DOUBLE NOT NULL,           -- share of the shown pairs given to two assessors
            seed          BIGINT NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        -- Each topic of the campaign and the condition it is judged under (manual, filtering,
        -- post-editing).
        CREATE TABLE campaign_topics (
            campaign_id  INTEGER NOT NULL,
            qid          VARCHAR NOT NULL,
            condition    VARCHAR NOT NULL,
            PRIMARY KEY (campaign_id, qid)
        );
        -- The pool as drawn: the LLM's grade of each pair then (NULL: the LLM did not grade it), its
        -- role (shown: put before people; dropped: left out by the condition; recall: dropped, but
        -- drawn with probability `inclusion` to be graded blind, to estimate what filtering hides)
        -- and its place in the order the campaign is walked in.
        CREATE TABLE campaign_pairs (
            campaign_id  INTEGER NOT NULL,
            qid          VARCHAR NOT NULL,
            docid        VARCHAR NOT NULL,
            llm_grade    DOUBLE,
            role         VARCHAR NOT NULL,
            inclusion    DOUBLE,
            position     INTEGER NOT NULL,
            PRIMARY KEY (campaign_id, qid, docid)
        );
        CREATE TABLE campaign_assignments (
            campaign_id  INTEGER NOT NULL,
            qid          VARCHAR NOT NULL,
            docid        VARCHAR NOT NULL,
            assessor     VARCHAR NOT NULL,
            PRIMARY KEY (campaign_id, qid, docid, assessor)
        );
        -- Append-only: each grade an assessor gave (grade NULL: taken back), with the condition it
        -- was given under, the seconds from the pair shown to the key (NULL: imported), whether the
        -- LLM's grade was on screen, and the label event of the campaign's label set written with
        -- it; a row whose event was undone no longer counts. The newest row per (pair, assessor)
        -- stands.
        CREATE SEQUENCE campaign_grade_ids START 1;
        CREATE TABLE campaign_grades (
            grade_id     BIGINT PRIMARY KEY DEFAULT nextval('campaign_grade_ids'),
            campaign_id  INTEGER NOT NULL,
            qid          VARCHAR NOT NULL,
            docid        VARCHAR NOT NULL,
            assessor     VARCHAR NOT NULL,
            condition    VARCHAR NOT NULL,
            grade        DOUBLE,
            seconds      DOUBLE,
            llm_visible  BOOLEAN NOT NULL,
            label_event  BIGINT NOT NULL,
            created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """
