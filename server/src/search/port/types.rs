//! The scalar types a port can reduce or count in, with what CUDA's atomics take for them.

/// A builtin scalar type as far as atomics and shuffles care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Float,
    Double,
    Signed(u8),
    Unsigned(u8),
    Bool,
}

impl Scalar {
    /// The class of a region's element type, `None` for structs and unknown names.
    pub fn of(ty: &str) -> Option<Scalar> {
        let t: Vec<&str> = ty
            .split_whitespace()
            .filter(|w| *w != "const" && *w != "signed")
            .collect();
        let t = t.join(" ");
        let t = t.trim_start_matches("std::");
        Some(match t {
            "float" => Scalar::Float,
            "double" => Scalar::Double,
            "bool" => Scalar::Bool,
            "char" | "int8_t" => Scalar::Signed(1),
            "unsigned char" | "uint8_t" => Scalar::Unsigned(1),
            "short" | "short int" | "int16_t" => Scalar::Signed(2),
            "unsigned short" | "unsigned short int" | "uint16_t" => Scalar::Unsigned(2),
            "int" | "int32_t" => Scalar::Signed(4),
            "unsigned" | "unsigned int" | "uint32_t" => Scalar::Unsigned(4),
            "long" | "long int" | "long long" | "long long int" | "int64_t" | "ptrdiff_t"
            | "ssize_t" => Scalar::Signed(8),
            "unsigned long"
            | "unsigned long int"
            | "unsigned long long"
            | "unsigned long long int"
            | "uint64_t"
            | "size_t" => Scalar::Unsigned(8),
            _ => return None,
        })
    }

    pub fn bytes(self) -> u8 {
        match self {
            Scalar::Float => 4,
            Scalar::Double => 8,
            Scalar::Signed(b) | Scalar::Unsigned(b) => b,
            Scalar::Bool => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    /// `atomicAdd(p, v)` for this type, if CUDA has one (through the 64-bit unsigned one for
    /// 64-bit integers: two's complement addition is the same).
    pub fn atomic_add(self, ty: &str, p: &str, v: &str) -> Option<String> {
        match self {
            Scalar::Float | Scalar::Double | Scalar::Signed(4) | Scalar::Unsigned(4) => {
                Some(format!("atomicAdd({p}, ({ty})({v}))"))
            }
            Scalar::Signed(8) | Scalar::Unsigned(8) => Some(format!(
                "atomicAdd(reinterpret_cast<unsigned long long*>({p}), (unsigned long long)({ty})({v}))"
            )),
            _ => None,
        }
    }
}
