"""A ticket's time limit and its progress: when it falls due, its escalation when due soon or overdue, and what the
hotline platform reports back (dispatched, answered, closed, returned)."""
