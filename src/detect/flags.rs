//! Flags: a detector's settings as named flags, declared beside the settings in the
//! detector's folder ([`Detector::flags`](super::Detector::flags)) and offered by any front
//! end — the command line makes one flag group per detector of the registry from them. A
//! flag says its name, its help, what its value is (so that a front end can check and show
//! it) and how it sets the settings; the library knows nothing of the command line.

use super::Choice;

/// What a flag's value is: how a front end checks it and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub enum FlagValue {
    /// No value: giving the flag is the setting.
    Switch,
    /// A share between 0 and 1.
    Share,
    /// A whole number of at least `min`.
    Count {
        /// The smallest value taken.
        min: u32,
    },
    /// A real number of at least `min`.
    Number {
        /// The smallest value taken.
        min: f64,
    },
    /// One of a few named values, each with one line of help.
    Choice(Vec<(&'static str, &'static str)>),
    /// A file's path.
    Path,
}

impl FlagValue {
    /// Whether `text` is a value of this kind (the reason when it is not).
    pub fn check(&self, text: &str) -> Result<(), String> {
        match self {
            FlagValue::Switch | FlagValue::Path => Ok(()),
            FlagValue::Share => parse_share(text).map(drop),
            FlagValue::Count { min } => parse_count(text, *min).map(drop),
            FlagValue::Number { min } => parse_number(text, *min).map(drop),
            FlagValue::Choice(names) => {
                if names.iter().any(|(name, _)| *name == text) {
                    Ok(())
                } else {
                    let expected: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
                    Err(format!("`{text}` is not one of: {}", expected.join(", ")))
                }
            }
        }
    }
}

/// What a front end shows of a flag: everything but how it sets the settings.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagSpec {
    /// The flag's name, without dashes (`bloom-similarity`).
    pub long: &'static str,
    /// One or two sentences of help.
    pub help: &'static str,
    /// What its value is.
    pub value: FlagValue,
    /// The default, as text (none for switches and for settings without one).
    pub default: Option<String>,
}

/// How a flag sets its detector's settings `S` from the value's text.
type Setter<S> = Box<dyn Fn(&mut S, &str) -> Result<(), String> + Send + Sync>;

/// One flag of the settings `S`.
pub struct Flag<S> {
    /// What a front end shows of it.
    pub spec: FlagSpec,
    set: Setter<S>,
}

impl<S: Default + 'static> Flag<S> {
    /// A share between 0 and 1, stored in `field`.
    pub fn share(long: &'static str, help: &'static str, field: fn(&mut S) -> &mut f64) -> Self {
        let default = field(&mut S::default()).to_string();
        Flag::new(
            long,
            help,
            FlagValue::Share,
            Some(default),
            move |settings, text| {
                *field(settings) = parse_share(text)?;
                Ok(())
            },
        )
    }

    /// A whole number of at least `min`, stored in `field`.
    pub fn count(
        long: &'static str,
        help: &'static str,
        min: u32,
        field: fn(&mut S) -> &mut u32,
    ) -> Self {
        let default = field(&mut S::default()).to_string();
        let value = FlagValue::Count { min };
        Flag::new(long, help, value, Some(default), move |settings, text| {
            *field(settings) = parse_count(text, min)?;
            Ok(())
        })
    }

    /// A real number of at least `min`, stored in `field`.
    pub fn number(
        long: &'static str,
        help: &'static str,
        min: f64,
        field: fn(&mut S) -> &mut f64,
    ) -> Self {
        let default = field(&mut S::default()).to_string();
        let value = FlagValue::Number { min };
        Flag::new(long, help, value, Some(default), move |settings, text| {
            *field(settings) = parse_number(text, min)?;
            Ok(())
        })
    }

    /// A switch: giving it does `turn_on`.
    pub fn switch(long: &'static str, help: &'static str, turn_on: fn(&mut S)) -> Self {
        Flag::new(long, help, FlagValue::Switch, None, move |settings, _| {
            turn_on(settings);
            Ok(())
        })
    }

    /// One of the named values of `T`, stored in `field`.
    pub fn choice<T: Choice>(
        long: &'static str,
        help: &'static str,
        field: fn(&mut S) -> &mut T,
    ) -> Self {
        let names = T::ALL
            .iter()
            .map(|value| (value.name(), value.about()))
            .collect();
        let default = field(&mut S::default()).name().to_string();
        Flag::new(
            long,
            help,
            FlagValue::Choice(names),
            Some(default),
            move |settings, text| {
                *field(settings) = T::from_name(text)
                    .ok_or_else(|| format!("`{text}` is not a value of {long}"))?;
                Ok(())
            },
        )
    }

    /// A flag whose value `set` reads itself (a file to load, a setting with no default).
    pub fn with(
        long: &'static str,
        help: &'static str,
        value: FlagValue,
        set: impl Fn(&mut S, &str) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Flag::new(long, help, value, None, set)
    }

    fn new(
        long: &'static str,
        help: &'static str,
        value: FlagValue,
        default: Option<String>,
        set: impl Fn(&mut S, &str) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Flag {
            spec: FlagSpec {
                long,
                help,
                value,
                default,
            },
            set: Box::new(set),
        }
    }

    /// Sets `settings` from the value's text (anything for a switch).
    pub fn set(&self, settings: &mut S, text: &str) -> Result<(), String> {
        (self.set)(settings, text)
    }
}

/// A share between 0 and 1.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let value = parse_number(text, f64::NEG_INFINITY)?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

fn parse_number(text: &str, min: f64) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if value.is_nan() || value < min {
        return Err(format!("{value} is less than {min}"));
    }
    Ok(value)
}

fn parse_count(text: &str, min: u32) -> Result<u32, String> {
    let value: u32 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number (0 to {})", u32::MAX))?;
    if value < min {
        return Err(format!("{value} is less than {min}"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Example {
        share: f64,
        count: u32,
        on: bool,
    }

    fn flags() -> Vec<Flag<Example>> {
        vec![
            Flag::share("share", "A share.", |s| &mut s.share),
            Flag::count("count", "A count.", 2, |s| &mut s.count),
            Flag::switch("on", "A switch.", |s| s.on = true),
        ]
    }

    #[test]
    fn flags_set_their_field_and_refuse_values_out_of_range() {
        let mut example = Example::default();
        let flags = flags();
        flags[0].set(&mut example, "0.25").unwrap();
        flags[1].set(&mut example, "7").unwrap();
        flags[2].set(&mut example, "").unwrap();
        assert_eq!((example.share, example.count, example.on), (0.25, 7, true));
        assert!(flags[0].set(&mut example, "1.5").is_err());
        assert!(flags[0].spec.value.check("x").is_err());
        assert!(flags[1].set(&mut example, "1").is_err());
        assert!(flags[1].spec.value.check("-3").is_err());
        assert_eq!(flags[0].spec.default.as_deref(), Some("0"));
        assert_eq!(flags[2].spec.default, None);
    }
}
