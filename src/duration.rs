//! The one parser of durations on the command line (`--timeout`, `--budget`, `--time`, ...).
//!
//! A bare number is seconds (`10`, `0.5`); a number with a unit is read by `humantime`
//! (`90s`, `10m`, `2h 30m`). Invariant: what is accepted is finite, not negative and at most
//! [`MAX_DURATION`], so adding it to an `Instant` cannot overflow; anything else (`inf`,
//! `NaN`, `-1`, `1e20`) is a usage error naming the value, never a panic.

use std::time::Duration;

/// The longest duration accepted: a year.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// Why a duration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("`{0}` is not a duration: write seconds (`10`, `0.5`) or a number with a unit (`90s`, `10m`, `2h`)")]
    Malformed(String),
    #[error("`{0}` is not a finite duration of zero or more seconds")]
    OutOfRange(String),
    #[error("`{0}` is longer than a year, the longest duration accepted")]
    TooLong(String),
    #[error("`{0}` is no time at all: a time limit must be more than zero")]
    Zero(String),
}

/// Parses a duration (see the module's rules); the value parser of every duration flag.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    let duration = match trimmed.parse::<f64>() {
        Ok(seconds) if !seconds.is_finite() || seconds < 0.0 => return Err(DurationError::OutOfRange(text.to_owned())),
        Ok(seconds) if seconds > MAX_DURATION.as_secs_f64() => return Err(DurationError::TooLong(text.to_owned())),
        Ok(seconds) => Duration::try_from_secs_f64(seconds).map_err(|_| DurationError::OutOfRange(text.to_owned()))?,
        Err(_) => humantime::parse_duration(trimmed).map_err(|_| DurationError::Malformed(text.to_owned()))?,
    };
    if duration > MAX_DURATION {
        return Err(DurationError::TooLong(text.to_owned()));
    }
    Ok(duration)
}

/// [`parse_duration`] for a time limit, which must be more than zero: a limit of nothing
/// would make every check it bounds fail.
pub fn parse_time_limit(text: &str) -> Result<Duration, DurationError> {
    match parse_duration(text)? {
        Duration::ZERO => Err(DurationError::Zero(text.to_owned())),
        limit => Ok(limit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_units_are_read() {
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("2h 30m"), Ok(Duration::from_secs(9000)));
    }

    #[test]
    fn infinite_negative_huge_and_malformed_values_are_errors() {
        for text in ["inf", "-inf", "NaN", "nan", "infinity", "-1", "-0.5"] {
            assert_eq!(parse_duration(text), Err(DurationError::OutOfRange(text.into())), "{text}");
        }
        for text in ["1e20", "400d", "1e300"] {
            assert_eq!(parse_duration(text), Err(DurationError::TooLong(text.into())), "{text}");
        }
        for text in ["", "ten", "10 parsecs", "-10m", "99999999999999999999999h"] {
            assert!(
                matches!(parse_duration(text), Err(DurationError::Malformed(_) | DurationError::TooLong(_))),
                "{text}"
            );
        }
    }

    #[test]
    fn a_time_limit_is_more_than_zero() {
        for text in ["0", "0s", "0ms", "0.0"] {
            assert_eq!(parse_time_limit(text), Err(DurationError::Zero(text.into())), "{text}");
        }
        assert_eq!(parse_time_limit("1ms"), Ok(Duration::from_millis(1)));
    }
}
