"""Version 10: runs stored as rankings in trec_eval's order.

Topics and documents are numbered once and each run's ranking of a topic becomes one list of
document numbers in trec_eval's order (with rank and score as written), so opening a project reads
arrays instead of sorting every run again. The ranked rows of older files are converted here, once,
and `run_rows` becomes a view over the lists.
"""

VERSION = 10

SQL = """
        -- trec_eval's order of every run, kept from the import on (studio.store.rankings): topics
        -- and documents numbered once, each run's ranking of a topic one list of document numbers
        -- in trec_eval's order, with the rank and score as written. The ranked rows of the older
        -- files are numbered and ranked here, once; run_rows becomes a view over the lists.
        CREATE TABLE ranking_topics (
            topic  INTEGER NOT NULL,
            qid    VARCHAR NOT NULL
        );
        CREATE TABLE ranking_docs (
            topic  INTEGER NOT NULL,
            doc    INTEGER NOT NULL,   -- 0 … n-1 within the topic
            docid  VARCHAR NOT NULL
        );
        CREATE TABLE run_rankings (
            run_id  INTEGER NOT NULL,
            topic   INTEGER NOT NULL,
            docs    INTEGER[] NOT NULL,   -- document numbers in trec_eval's order
            ranks   BIGINT[] NOT NULL,    -- the rank column as written, aligned with docs
            scores  DOUBLE[] NOT NULL     -- the score as written, aligned with docs
        );
        INSERT INTO ranking_topics
        SELECT row_number() OVER (ORDER BY qid) - 1, qid FROM (SELECT DISTINCT qid FROM run_rows);
        INSERT INTO ranking_docs
        SELECT t.topic, row_number() OVER (PARTITION BY t.topic ORDER BY r.docid) - 1, r.docid
        FROM (SELECT DISTINCT qid, docid FROM run_rows) AS r JOIN ranking_topics AS t USING (qid);
        INSERT INTO run_rankings
        SELECT run_id, topic, list_transform(ranked, lambda e: e.doc), list_transform(ranked, lambda e: e.rank),
               list_transform(ranked, lambda e: e.score)
        FROM (SELECT r.run_id, t.topic,
                     list({'doc': d.doc, 'rank': r.rank, 'score': r.score}
                          ORDER BY CASE WHEN abs(r.score) > 3.4028234663852886e38
                                        THEN sign(r.score) * 'inf'::FLOAT ELSE r.score::FLOAT END DESC,
                                   r.docid DESC) AS ranked
              FROM run_rows AS r
              JOIN ranking_topics AS t USING (qid)
              JOIN ranking_docs AS d ON d.topic = t.topic AND d.docid = r.docid
              GROUP BY r.run_id, t.topic);
        DROP TABLE run_rows;
        CREATE VIEW run_rows AS
        SELECT r.run_id, t.qid, d.docid, r.rank, r.score
        FROM (SELECT run_id, topic, unnest(docs) AS doc, unnest(ranks) AS rank, unnest(scores) AS score
              FROM run_rankings) AS r
        JOIN ranking_topics AS t ON t.topic = r.topic
        JOIN ranking_docs AS d ON d.topic = r.topic AND d.doc = r.doc;
        """
