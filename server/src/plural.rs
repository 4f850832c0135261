//! Counts in messages people read: "1 example", "2 examples".

/// `n` and the noun in the form that agrees with it.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn agrees_with_the_number() {
        assert_eq!(super::count(1, "example", "examples"), "1 example");
        assert_eq!(super::count(0, "example", "examples"), "0 examples");
        assert_eq!(
            super::count(5, "model call", "model calls"),
            "5 model calls"
        );
    }
}
