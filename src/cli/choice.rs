//! Parsing a library [`Choice`] (a detector, `--sandwich-unit`) as a command-line value: the
//! names and their one-line help come from the library, so they are spelled once.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;

use indexer::detect::Choice;

/// A value parser for the choice `T`.
pub fn choice<T: Choice + Send + Sync>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

/// See [`choice`].
#[derive(Clone)]
pub struct ChoiceParser<T>(PhantomData<T>);

impl<T: Choice + Send + Sync> ChoiceParser<T> {
    fn possible() -> impl Iterator<Item = PossibleValue> {
        T::ALL
            .iter()
            .map(|value| PossibleValue::new(value.name()).help(value.about()))
    }
}

impl<T: Choice + Send + Sync> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let name = PossibleValuesParser::new(Self::possible()).parse_ref(command, arg, value)?;
        T::from_name(&name).ok_or_else(|| {
            clap::Error::raw(ErrorKind::InvalidValue, format!("unknown value `{name}`"))
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::possible()))
    }
}
