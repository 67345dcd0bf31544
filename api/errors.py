"""One JSON error shape for every 4xx/5xx: ``{"error": {"type", "message", "details"}}``.

``kgmem`` errors carry their own ``type``/``http_status``; FastAPI validation errors become
``422 invalid_input``; Starlette's HTTP errors (unknown route, wrong method) and the API's own
401/403/413 use the same shape. Anything unexpected is a ``500 internal_error`` whose message
never leaks the exception text.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from kgmem.errors import KgmemError, StoreUnavailableError
from kgmem.timeutil import TIME_PATTERN

log = logging.getLogger("kgmem.api")


class ErrorDetail(BaseModel):
    type: str = Field(
        description="Stable machine-readable error type, e.g. not_found, invalid_input, "
        "invalid_time, conflict, clock_went_backwards, unauthorized, forbidden, "
        "request_too_large, store_unavailable, store_busy, internal_error."
    )
    message: str = Field(description="Human-readable explanation.")
    details: dict[str, Any] = Field(
        default_factory=dict, description="Structured context (field names, ids, limits...)."
    )


class ErrorResponse(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


class APIError(Exception):
    """An HTTP-level error raised by the API layer itself (auth, limits)."""

    def __init__(self, status: int, type: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.status = status
        self.type = type
        self.message = message
        self.details = details


def error_json(
    status: int, type: str, message: str, details: Mapping[str, object] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"type": type, "message": message, "details": details or {}}}
    return JSONResponse(jsonable_encoder(body), status_code=status, headers=headers)


_STATUS_TYPES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "too_many_requests",
    500: "internal_error",
    503: "store_unavailable",
}


def _doc(description: str) -> dict[str, Any]:
    return {"model": ErrorResponse, "description": description}


# OpenAPI documentation of the error responses, by status code.
ERROR_DOCS: dict[int | str, dict[str, Any]] = {
    401: _doc("Missing or invalid API key (only when API keys are configured)."),
    403: _doc("The API key is not allowed to use the requested group (X-Group)."),
    404: _doc("No such id or name in this group (or nothing visible at the requested times)."),
    409: _doc("Conflicts with the current state (e.g. undo of a change later changes depend "
              "on, a retracted fact, an erase) or the transaction clock went backwards."),
    413: _doc("Request body larger than max_request_bytes, more episode text than "
              "max_episode_chars (content_too_large), or more episode text to extract "
              "than max_extract_chars (extraction_too_large)."),
    422: _doc("Invalid input: a malformed parameter, header, body, time or interval."),
    500: _doc("Unexpected server error (a bug): the message never includes internals."),
    503: {**_doc("The store cannot be reached (store_unavailable) or stayed busy longer than "
                 "busy_timeout (store_busy); nothing was written. Retry after Retry-After "
                 "seconds."),
          "headers": {"Retry-After": {"description": "Seconds to wait before retrying.",
                                      "schema": {"type": "integer"}}}},
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The documented error responses for a route."""
    return {c: ERROR_DOCS[c] for c in codes}


def _clean_validation_errors(errs: Any) -> list[dict[str, Any]]:
    out = []
    for e in errs:
        item: dict[str, Any] = {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")),
                                "type": str(e.get("type", ""))}
        loc = item["loc"]
        if len(loc) >= 4 and loc[:2] == ["body", "episodes"] and isinstance(loc[2], int):
            # a bulk item, named as the library names it: {index, field, message}
            item.update(index=loc[2], field=str(loc[3]), message=item["msg"])
        out.append(item)
    return out


def _time_error(errs: Any) -> JSONResponse | None:
    """A time field that does not match the published pattern: the library's own answer for
    it (422 ``invalid_time``, ``details.field``), whichever layer saw it first."""
    for e in errs:
        ctx = e.get("ctx") or {}
        if e.get("type") == "string_pattern_mismatch" and ctx.get("pattern") == TIME_PATTERN:
            loc = [str(x) for x in e.get("loc", ())]
            field = loc[-1] if loc else "time"
            value = str(e.get("input"))[:80]
            what = (f"{field}: cannot parse {value!r} as an ISO-8601 time (a year, month, date "
                    "or instant such as '2023-05-08T10:00:00Z'; at most 6 fractional digits)")
            details: dict[str, Any] = {"field": field, "value": value, "loc": loc}
            if loc[:2] == ["body", "episodes"] and len(loc) >= 4:  # a bulk item, by index
                details["errors"] = _clean_validation_errors(errs)
                what = f"episode {loc[2]}: {what}"
            return error_json(422, "invalid_time", what, details)
    return None


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(KgmemError)
    async def _kgmem(request: Request, exc: KgmemError) -> JSONResponse:
        status = exc.http_status
        if status >= 500:
            log.error("store error on %s %s: %s", request.method, request.url.path, exc)
        headers = None
        message = exc.message
        if isinstance(exc, StoreUnavailableError):  # nothing was written: say when to retry
            headers = {"Retry-After": str(exc.retry_after)}
            message = exc.public_message  # the full text (paths, driver errors) was logged
        return error_json(status, exc.type, message, jsonable_encoder(exc.details),
                          headers=headers)

    @app.exception_handler(APIError)
    async def _api(request: Request, exc: APIError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return error_json(exc.status, exc.type, exc.message, exc.details, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        bad_time = _time_error(exc.errors())
        if bad_time is not None:
            return bad_time
        errs = _clean_validation_errors(exc.errors())
        first: dict[str, Any] = errs[0] if errs else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(x) for x in first["loc"])
        if "index" in first:
            where = f"episode {first['index']}: {first['field']}"
        return error_json(422, "invalid_input", f"{where}: {first['msg']}" if where
                          else first["msg"], {"errors": errs})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
            # FastAPI's answer to a body that is not even decodable: same class of error as
            # any other malformed input.
            return error_json(422, "invalid_input", "the request body could not be parsed",
                              {"errors": [{"loc": ["body"], "msg": "unparsable body",
                                           "type": "body_parse_error"}]})
        typ = _STATUS_TYPES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else typ.replace("_", " ")
        return error_json(exc.status_code, typ, message, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_json(500, "internal_error", "internal server error")
