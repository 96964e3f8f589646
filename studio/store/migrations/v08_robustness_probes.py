"""Version 8: robustness probes.

A judge's label of a passage before and after the passage was stuffed with the query's terms and a
claim of relevance, per probe (Alaofi et al. 2024).
"""

VERSION = 8

SQL = """
        -- Robustness probes: a judge's label of a passage before and after the passage was
        -- stuffed with the query's terms and a claim of relevance.
        CREATE SEQUENCE probe_ids START 1;
        CREATE TABLE probes (
            probe_id      INTEGER PRIMARY KEY,
            label_set     VARCHAR NOT NULL,   -- the judge's label set
            method        VARCHAR NOT NULL,
            model         VARCHAR NOT NULL,
            perturbation  VARCHAR NOT NULL,
            ref           VARCHAR NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE probe_results (
            probe_id   INTEGER NOT NULL,
            qid        VARCHAR NOT NULL,
            docid      VARCHAR NOT NULL,
            original   DOUBLE,
            perturbed  DOUBLE,            -- NULL with error: the perturbed passage got no label
            call_key   VARCHAR NOT NULL,
            error      VARCHAR
        );
        """
