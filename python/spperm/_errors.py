"""The exceptions spperm raises (docs/Python.md, "Errors").

Every failure of the runtime or the compiler is an :class:`SppermError` whose
message is the one-line message the C API's ``sprt_last_error`` or
``spperm-compile`` gives; the subclass says which kind of failure it is, and
the ones about arguments are also the matching built-in exception (a bad
shape is a ``ValueError``, an unknown layer a ``KeyError``), so code that
catches those keeps working.
"""

from __future__ import annotations


class SppermError(RuntimeError):
    """Base class of every spperm failure."""


class InvalidArgumentError(SppermError, ValueError):
    """A wrong shape, dtype, device, alignment or option value
    (SPRT_ERROR_INVALID_ARGUMENT)."""


class PackageIOError(SppermError, OSError):
    """The package directory or one of its files cannot be read
    (SPRT_ERROR_IO)."""


class CorruptPackageError(SppermError):
    """The package is malformed, of another version, or fails a check
    (SPRT_ERROR_CORRUPT_PACKAGE)."""


class LayerNotFoundError(SppermError, KeyError):
    """No layer of that name (SPRT_ERROR_NOT_FOUND)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnsupportedError(SppermError):
    """Something this build or package lacks, e.g. the GPU in a build without
    CUDA (SPRT_ERROR_UNSUPPORTED)."""


class DeviceError(SppermError):
    """The GPU reported an error (SPRT_ERROR_DEVICE)."""


class DeviceMemoryError(SppermError, MemoryError):
    """GPU memory could not be allocated (SPRT_ERROR_OUT_OF_MEMORY)."""


class CompileError(SppermError, ValueError):
    """The compiler refused the input or the options (a bad matrix file
    too): a ``ValueError``, as :class:`InvalidArgumentError` is; the message
    is what spperm-compile prints, one problem per line, the cause first."""


_BY_STATUS = {
    1: InvalidArgumentError,
    2: PackageIOError,
    3: CorruptPackageError,
    4: LayerNotFoundError,
    5: UnsupportedError,
    6: DeviceError,
    7: DeviceMemoryError,
    -1: CompileError,
}


def error_class(status: int) -> type:
    """The exception class of a runtime status (sprt_status) or of a compile
    failure (-1)."""
    return _BY_STATUS.get(status, SppermError)


def did_you_mean(value: str, names: "list[str]") -> str:
    """``"; did you mean 'NAME'?"`` for the names ``value`` is likely a slip
    of, else ``""``: the rule of every spperm tool's "unknown name" errors
    (spperm/Sparse/Spelling.h, bound as ``_core.did_you_mean``). Text that
    is not valid UTF-8 (a lone surrogate) is compared with U+FFFD in its
    place."""
    from . import _core

    def text(s: str) -> str:
        return s.encode("utf-8", "replace").decode("utf-8")

    return _core.did_you_mean(text(value), [text(n) for n in names])
