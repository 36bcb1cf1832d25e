//! The argument ABI: the attributes that say what an argument of a routine
//! is (a param, a gradient, the optimizer's state, the learning rate), set
//! by the passes that make the routines and read by the backends and the
//! callers. One table: its constants are the only spelling of the names in
//! the project's code (`scripts/structure.py` checks), and the dialect
//! reference's section on them is generated from it.
//!
//! Every attribute is a string attribute of a `func.func` argument
//! (`{ocannl.param = "w1"}`); an argument with none of them is data.

/// A param (its value: the param's name). Set by `ocannl-lower-to-assign`
/// on the arguments a function takes its params as, kept by the training
/// passes.
pub const PARAM: &str = "ocannl.param";
/// A gradient argument of an update routine (`@<f>_update`); its value is
/// the param's name.
pub const GRADIENT: &str = "ocannl.gradient";
/// The learning-rate argument of a train step (its value is empty).
pub const LEARNING_RATE: &str = "ocannl.learning_rate";
/// SGD's momentum of a param (its value: the param's name).
pub const MOMENTUM: &str = "ocannl.momentum";
/// Adam's first moment of a param (its value: the param's name).
pub const ADAM_M: &str = "ocannl.adam_m";
/// Adam's second moment of a param (its value: the param's name).
pub const ADAM_V: &str = "ocannl.adam_v";
/// The optimizer's step count (its value is empty: the routine's own).
pub const STEP: &str = "ocannl.step";

/// What an argument is, by the attribute that marks it.
pub struct ArgRole {
    /// The attribute's name.
    pub attribute: &'static str,
    /// The role's word in an executable's signature (`param`, `state:adam_m`).
    pub role: &'static str,
    /// What the attribute's value is.
    pub value: &'static str,
    /// Which routines have such arguments, and which pass marks them.
    pub routines: &'static str,
}

/// The optimizer's state kinds' attributes, in the order of the state's
/// kinds (`ocannl_assign::optim::State::ALL`).
pub const STATE: [&str; 4] = [MOMENTUM, ADAM_M, ADAM_V, STEP];

/// Every role an argument can have besides data.
pub const ROLES: &[ArgRole] = &[
    ArgRole {
        attribute: PARAM,
        role: "param",
        value: "the param's name",
        routines: "every function with params (`ocannl-lower-to-assign`), its gradient routine, init and train step (`ocannl-autodiff`, `ocannl-train-step`)",
    },
    ArgRole {
        attribute: GRADIENT,
        role: "gradient",
        value: "the param's name",
        routines: "the update routine of a split train step, `@<f>_update` (`ocannl-train-step{split=true}`)",
    },
    ArgRole {
        attribute: MOMENTUM,
        role: "state:momentum",
        value: "the param's name",
        routines: "the train step with SGD's momentum (`ocannl-train-step`)",
    },
    ArgRole {
        attribute: ADAM_M,
        role: "state:adam_m",
        value: "the param's name",
        routines: "the train step with Adam or AdamW (`ocannl-train-step`)",
    },
    ArgRole {
        attribute: ADAM_V,
        role: "state:adam_v",
        value: "the param's name",
        routines: "the train step with Adam or AdamW (`ocannl-train-step`)",
    },
    ArgRole {
        attribute: STEP,
        role: "state:step",
        value: "empty (the routine's own)",
        routines: "the train step with Adam or AdamW (`ocannl-train-step`)",
    },
    ArgRole {
        attribute: LEARNING_RATE,
        role: "learning_rate",
        value: "empty",
        routines: "every train step and update routine (`ocannl-train-step`)",
    },
];

/// The attribute of the state kind named `kind` (`adam_m`).
pub fn state_attribute(kind: &str) -> Option<&'static str> {
    STATE
        .into_iter()
        .find(|a| a.strip_prefix("ocannl.") == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_attribute_once_and_the_states_in_it() {
        for (i, a) in ROLES.iter().enumerate() {
            assert!(a.attribute.starts_with("ocannl."), "{}", a.attribute);
            assert!(
                ROLES[i + 1..]
                    .iter()
                    .all(|b| b.attribute != a.attribute && b.role != a.role),
                "{} twice",
                a.attribute
            );
        }
        for s in STATE {
            let row = ROLES.iter().find(|r| r.attribute == s).expect("a row");
            let kind = s.strip_prefix("ocannl.").expect("a prefix");
            assert_eq!(row.role, format!("state:{kind}"));
        }
        assert_eq!(state_attribute("adam_v"), Some(ADAM_V));
        assert_eq!(state_attribute("param"), None);
    }
}
