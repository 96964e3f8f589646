"""Pure data of the studio: the things an evaluation is made of, and the errors about them."""

from studio.domain.errors import InputError, ProjectError, StudioError, UsageError
from studio.domain.models import (
    BankItem,
    Document,
    LabelSetKind,
    QrelsRow,
    Response,
    RunRow,
    Topic,
)

__all__ = [
    "BankItem",
    "Document",
    "InputError",
    "LabelSetKind",
    "ProjectError",
    "QrelsRow",
    "Response",
    "RunRow",
    "StudioError",
    "Topic",
    "UsageError",
]
