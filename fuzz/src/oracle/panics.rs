//! Panics turned into values: [`catch`] runs a closure and returns its panic's message and
//! source location instead of unwinding, without printing the default panic message.
//!
//! A process-wide hook is installed once; it stays silent and records the location only on
//! threads that are inside [`catch`], and defers to the previous hook everywhere else, so
//! panics outside the fuzzers still print as usual.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

/// A caught panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    pub message: String,
    /// `file:line` of the panic, or `unknown`.
    pub location: String,
}

thread_local! {
    /// `Some` while this thread runs inside `catch`: the location of the last panic.
    static CAPTURE: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let captured = CAPTURE.with(|c| {
                let mut slot = c.borrow_mut();
                match slot.as_mut() {
                    Some(location) => {
                        *location = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it comes back as `Err`.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Panic> {
    install_hook();
    let outer = CAPTURE.with(|c| c.borrow_mut().replace(None));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let location = CAPTURE.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).flatten();
    result.map_err(|payload| Panic {
        message: payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into()),
        location: location.unwrap_or_else(|| "unknown".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_value_with_its_location() {
        let caught = catch(|| -> u8 { panic!("boom {}", 1) }).unwrap_err();
        assert_eq!(caught.message, "boom 1");
        assert!(caught.location.contains("panics.rs"), "{}", caught.location);
        assert_eq!(catch(|| 7), Ok(7));
    }

    #[test]
    fn nested_catches_keep_their_own_locations() {
        let outer = catch(|| -> u8 {
            let inner = catch(|| -> u8 { panic!("inner") });
            assert!(inner.is_err());
            panic!("outer")
        })
        .unwrap_err();
        assert_eq!(outer.message, "outer");
    }
}
