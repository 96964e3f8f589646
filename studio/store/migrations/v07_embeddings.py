"""Version 7: cached sentence embeddings.

Embeddings of documents and answers keyed by model and text hash, so that a second embedding judge
or FD leaderboard encodes nothing again. (Versions 7 and 8 arrived together: no studio wrote a
file whose newest version was 7.)
"""

VERSION = 7

SQL = """
        -- Sentence embeddings of texts (documents, answers), keyed by the embedding model and the
        -- md5 of the text: a second embedding judge or FD leaderboard encodes nothing again.
        CREATE TABLE embeddings (
            model      VARCHAR NOT NULL,
            text_hash  VARCHAR NOT NULL,
            vector     FLOAT[] NOT NULL,   -- L2-normalised
            PRIMARY KEY (model, text_hash)
        );
        """
