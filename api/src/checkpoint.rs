//! A trainer's params as one checkpoint file, in the `safetensors` format
//! (`ocannl_runtime::safetensors`): each param by its name.

use std::{collections::HashMap, path::Path};

use crate::{Error, Trainer};

impl Trainer {
    /// Writes every param into one `safetensors` file (atomically: a
    /// failure leaves no partial file and keeps the old one).
    pub fn save_checkpoint(&self, path: &Path) -> Result<(), Error> {
        let tensors = self
            .param_names()
            .iter()
            .map(|n| Ok((n.clone(), self.param(n)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        ocannl_runtime::safetensors::write(path, &tensors).map_err(Error::from)
    }

    /// Reads every param from a file [`Trainer::save_checkpoint`] wrote.
    /// Nothing changes unless every param is in the file with its shape
    /// and the file holds no other tensor.
    pub fn load_checkpoint(&mut self, path: &Path) -> Result<(), Error> {
        let mut tensors: HashMap<String, _> = ocannl_runtime::safetensors::read(path)
            .map_err(Error::from)?
            .into_iter()
            .collect();
        let names = self.param_names().to_vec();
        let mut values = vec![];
        for name in &names {
            let t = tensors.remove(name).ok_or_else(|| {
                Error::File(format!(
                    "{}: no tensor for the param '{name}'",
                    path.display()
                ))
            })?;
            let want = self.param(name)?;
            if t.dims != want.dims {
                return Err(Error::File(format!(
                    "{}: the param '{name}' has shape {:?} in the file but {:?} in the model",
                    path.display(),
                    t.dims,
                    want.dims
                )));
            }
            values.push((name, t));
        }
        if let Some(extra) = tensors.keys().min() {
            return Err(Error::File(format!(
                "{}: the tensor '{extra}' is no param of the model (a checkpoint of another model?)",
                path.display()
            )));
        }
        for (name, t) in values {
            self.set_param(name, &t)?;
        }
        Ok(())
    }
}
