"""The service's error tree. Each maps to one RFC 9457 problem-details response."""

from __future__ import annotations

from dataclasses import dataclass


class StrataError(Exception):
    """Base of every error the service reports to clients."""

    status = 500
    title = "Internal error"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class FieldError:
    field: str
    message: str


class InvalidInput(StrataError):
    status = 422
    title = "Invalid input"

    def __init__(self, errors: list[FieldError]) -> None:
        detail = "; ".join(f"{e.field}: {e.message}" for e in errors)
        super().__init__(detail)
        self.errors = errors

    @classmethod
    def one(cls, field: str, message: str) -> InvalidInput:
        return cls([FieldError(field, message)])

    def named(self, domain: str, request: str) -> InvalidInput:
        """The same errors, each naming the n-th of ``domain`` (``entries[3].tags[1]``, as
        the domain names its entries) as the request's path names it (``events[3].tags[1]``,
        ``ids[3]``)."""
        start = f"{domain}["
        return InvalidInput(
            [
                FieldError(request + e.field[len(domain) :], e.message)
                if e.field.startswith(start)
                else e
                for e in self.errors
            ]
        )


class MalformedRequest(StrataError):
    """A request the service cannot read: a body that is not UTF-8 JSON, or nested too deep."""

    status = 400
    title = "Malformed request"


class Unauthorized(StrataError):
    status = 401
    title = "Unauthorized"


class Forbidden(StrataError):
    status = 403
    title = "Forbidden"


class NotFound(StrataError):
    status = 404
    title = "Not found"


class Conflict(StrataError):
    status = 409
    title = "Conflict"


class PayloadTooLarge(StrataError):
    status = 413
    title = "Payload too large"


class ConfigError(Exception):
    """Invalid configuration; raised at start-up, never to a client."""


class TooManyRequests(StrataError):
    """Over one of the caller's limits; ``retry_after``: whole seconds until it is not."""

    status = 429
    title = "Too many requests"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = max(1, retry_after)
