"""The write engine: the supersession rules applied per (subject, predicate), the edits of one lineage, predicates as data and entity resolution."""
