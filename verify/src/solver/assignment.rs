//! Values of named variables: what a counterexample says, and what reports show of it.
//!
//! Invariants: entries keep the order they were added in (a query's declaration order, then
//! whatever a report appends), and a name is looked up by its first entry. Serialized, an
//! assignment is a list of `[name, value]` pairs, which is the JSON `tirproof verify --json`
//! has always emitted.

use std::fmt;

use serde::ser::{Serialize, SerializeTuple, Serializer};

/// One variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub value: i64,
}

/// Named values in order, e.g. the values of a query's variables that break an obligation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assignment {
    entries: Vec<Entry>,
}

impl Assignment {
    /// An assignment without entries.
    #[must_use]
    pub fn new() -> Self {
        Assignment::default()
    }

    /// Appends `name = value`.
    pub fn push(&mut self, name: impl Into<String>, value: i64) {
        self.entries.push(Entry { name: name.into(), value });
    }

    /// The value of `name`, if it has one.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<i64> {
        self.entries.iter().find(|e| e.name == name).map(|e| e.value)
    }

    /// The entries, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Entry> {
        self.entries.iter()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries whose name `keep` accepts, in order.
    #[must_use]
    pub fn filtered(&self, keep: impl Fn(&str) -> bool) -> Assignment {
        self.iter().filter(|e| keep(&e.name)).cloned().collect()
    }
}

impl<'a> IntoIterator for &'a Assignment {
    type Item = &'a Entry;
    type IntoIter = std::slice::Iter<'a, Entry>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl FromIterator<Entry> for Assignment {
    fn from_iter<I: IntoIterator<Item = Entry>>(entries: I) -> Self {
        Assignment { entries: entries.into_iter().collect() }
    }
}

impl<S: Into<String>> FromIterator<(S, i64)> for Assignment {
    fn from_iter<I: IntoIterator<Item = (S, i64)>>(pairs: I) -> Self {
        pairs.into_iter().map(|(name, value)| Entry { name: name.into(), value }).collect()
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.name, self.value)
    }
}

/// `i = 3, n = 7`; nothing when empty.
impl fmt::Display for Assignment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, entry) in self.entries.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{entry}")?;
        }
        Ok(())
    }
}

/// `["i", 3]`.
impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&self.name)?;
        pair.serialize_element(&self.value)?;
        pair.end()
    }
}

/// `[["i", 3], ["n", 7]]`.
impl Serialize for Assignment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(&self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::Assignment;

    #[test]
    fn an_assignment_shows_and_serializes_as_before() {
        let values: Assignment = [("i", 3), ("n", 7)].into_iter().collect();
        assert_eq!(values.to_string(), "i = 3, n = 7");
        let legacy = vec![("i".to_owned(), 3_i64), ("n".to_owned(), 7)];
        assert_eq!(serde_json::to_string(&values).ok(), serde_json::to_string(&legacy).ok());
        assert_eq!(values.get("n"), Some(7));
        assert_eq!(values.filtered(|n| n != "i").to_string(), "n = 7");
        assert_eq!(Assignment::new().to_string(), "");
    }
}
