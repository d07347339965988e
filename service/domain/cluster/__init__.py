"""Replicas: how each brings its indexes up to the ledger's change log
(``service.domain.model.changes``)."""
