"""Version 15: calibrated label sets.

How each calibrated label set was made (its LLM label set, the people's label set it was fitted
to, method, folds, seed, measure), the map fitted on all gold pairs, the cross-fitted figures and
the calibration curve, so it can be shown and refreshed when a source changes.
"""

VERSION = 15

SQL = """
        -- Calibrated label sets: how each was made (its LLM label set, the people's label set it
        -- was fitted to, method, folds, seed), the map fitted on all gold pairs, the cross-fitted
        -- figures and the calibration curve (JSON), so it can be shown and refreshed when a
        -- source changes.
        CREATE TABLE calibrations (
            label_set_id  INTEGER PRIMARY KEY,
            source        VARCHAR NOT NULL,   -- the LLM label set
            gold          VARCHAR NOT NULL,   -- the people's label set
            method        VARCHAR NOT NULL,   -- isotonic | ordinal
            folds         INTEGER NOT NULL,
            seed          BIGINT NOT NULL,
            measure       VARCHAR NOT NULL,   -- the measure of the leaderboard τ
            fitted        VARCHAR NOT NULL,   -- the map fitted on all gold pairs (JSON)
            figures       VARCHAR NOT NULL,   -- cross-fitted κ and τ beside the raw set's (JSON)
            curve         VARCHAR NOT NULL,   -- LLM value bins -> mean gold grade (JSON)
            updated_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """
