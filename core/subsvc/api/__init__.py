"""The endpoint layer: declare an endpoint once (see :mod:`subsvc.api.endpoint`)."""

from subsvc.api.attributes import from_attributes
from subsvc.api.endpoint import Area, Endpoint, Operation, Router, operation
from subsvc.api.errors import HTTPError, RequestValidationError
from subsvc.api.forms import UploadedFile
from subsvc.api.inputs import INT32_MAX, INT64_MAX, BigInt, fits_int32, fits_int64
from subsvc.api.money import price_label, rubles
from subsvc.api.pagination import Limit, Offset, Page
from subsvc.api.params import Body, File, Form, Header, Path, Query

__all__ = [
    "INT32_MAX",
    "INT64_MAX",
    "Area",
    "BigInt",
    "Body",
    "Endpoint",
    "File",
    "Form",
    "HTTPError",
    "Header",
    "Limit",
    "Offset",
    "Operation",
    "Page",
    "Path",
    "Query",
    "RequestValidationError",
    "Router",
    "UploadedFile",
    "fits_int32",
    "fits_int64",
    "from_attributes",
    "operation",
    "price_label",
    "rubles",
]
