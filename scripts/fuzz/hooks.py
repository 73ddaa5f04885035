# Schemathesis hooks of `npm run fuzz` (scripts/fuzz.sh): a check that every JSON answer is the
# API's envelope (api-contract.md), beside Schemathesis' own checks.
import json

import schemathesis


@schemathesis.check
def envelope(ctx, response, case):
    """Every response (except the documents /openapi.json and /docs) is {success, data} or {success: false, error: {code, message}}."""
    ctype = response.headers.get("content-type", [""])
    ctype = ctype[0] if isinstance(ctype, list) else ctype
    if not ctype.startswith("application/json"):
        raise AssertionError(f"not a JSON envelope: Content-Type {ctype!r}, status {response.status_code}")
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(f"body is not JSON: {exc}") from None
    if not isinstance(body, dict) or not isinstance(body.get("success"), bool):
        raise AssertionError("body has no boolean `success`")
    if body["success"]:
        if response.status_code >= 400 or "data" not in body or "error" in body:
            raise AssertionError(f"success envelope with status {response.status_code} or without `data`")
        extra = set(body) - {"success", "data", "degraded"}
    else:
        err = body.get("error")
        if response.status_code < 400 or not isinstance(err, dict):
            raise AssertionError(f"error envelope with status {response.status_code} or without `error`")
        if not isinstance(err.get("code"), str) or not isinstance(err.get("message"), str):
            raise AssertionError("error without string `code` and `message`")
        extra = set(body) - {"success", "error"}
    if extra:
        raise AssertionError(f"unexpected top-level fields {sorted(extra)}")
