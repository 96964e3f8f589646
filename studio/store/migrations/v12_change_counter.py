"""Version 12: the project's change counter.

One more per write transaction from any process, so that a process holding the project's state in
memory (the TUI) notices what other processes wrote.
"""

VERSION = 12

SQL = """
        -- One more per write transaction, from any process: a process that keeps the project's
        -- state in memory (the TUI) compares it with what it saw last to notice others' writes.
        CREATE TABLE project_changes (counter BIGINT NOT NULL);
        INSERT INTO project_changes VALUES (0);
        """
