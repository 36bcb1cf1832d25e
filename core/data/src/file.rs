//! Opening a data file, and what to say when a file that a Debian package
//! installs cannot be read.

use std::{fs::File, io, path::Path};

use ocannl_runtime::Error;

/// Why a file could not be read: whether it is missing decides how a
/// package hint is worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    Missing,
    Other,
}

/// The error, and what failed.
pub(crate) type Failed = (Failure, Error);

/// Opens `path`, or says why not.
pub(crate) fn open(path: &Path) -> Result<File, Failed> {
    File::open(path).map_err(|e| {
        let failure = if e.kind() == io::ErrorKind::NotFound {
            Failure::Missing
        } else {
            Failure::Other
        };
        (
            failure,
            Error::io(format!("cannot read {}: {e}", path.display()), e),
        )
    })
}

/// The message, and which package to install (a missing file) or
/// reinstall (a file that cannot be read as it should).
pub(crate) fn with_package_hint((failure, error): Failed, package: &str) -> Error {
    error.map_message(|message| match failure {
        Failure::Missing => format!(
            "{message}; the file is installed by Debian's package {package} \
             (apt-get install {package}; scripts/bootstrap.sh installs it)"
        ),
        Failure::Other => format!(
            "{message}; the file is installed by Debian's package {package} \
             (apt-get install --reinstall {package})"
        ),
    })
}
