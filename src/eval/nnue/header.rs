//! The shape fields of a network file's header (format version 3) as they are stored, whatever
//! they say: the layout in which the trainer writes every shape it makes and from which the
//! engine reads its own. The engine compiles one shape (`FileShape::ENGINE`, also read mirrored
//! as `FileShape::ENGINE_MIRRORED`) and refuses a file whose fields say another, naming it
//! (`Display`); the trainer (`tune::shape`) gives the fields their meaning for every shape it
//! trains.

use std::fmt;

/// Bytes of the shape fields (see `FileShape::to_bytes`).
pub const SHAPE_BYTES: usize = 16 + 64;
/// The activation codes of the header.
pub const CRELU: u32 = 0;
pub const SCRELU: u32 = 1;

/// The header's shape fields (little-endian): hidden size (u32), activation (u32: `CRELU` or
/// `SCRELU`), output buckets (u32), mirroring (u32: 0 none, 1 a king on files e-h mirrors the
/// board), then the king bucket of each square, a1 to h8 from the king's own side, one byte
/// each (all 0: no king buckets).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileShape {
    pub hidden: u32,
    pub activation: u32,
    pub output_buckets: u32,
    pub mirroring: u32,
    pub king_buckets: [u8; 64],
}

impl FileShape {
    /// The shape the engine reads (plain, or as `ENGINE_MIRRORED`): no king buckets, `HIDDEN`
    /// SCReLU neurons, eight output buckets.
    pub const ENGINE: FileShape = FileShape {
        hidden: super::HIDDEN as u32,
        activation: SCRELU,
        output_buckets: super::OUTPUT_BUCKETS as u32,
        mirroring: 0,
        king_buckets: [0; 64],
    };

    /// The engine's shape read mirrored: each side reflects the board while its king stands on
    /// files e-h (one king bucket).
    pub const ENGINE_MIRRORED: FileShape = FileShape { mirroring: 1, ..FileShape::ENGINE };

    #[cfg(any(test, feature = "tune"))]
    pub fn to_bytes(self) -> [u8; SHAPE_BYTES] {
        let mut bytes = [0; SHAPE_BYTES];
        let words = [self.hidden, self.activation, self.output_buckets, self.mirroring];
        for (slot, word) in bytes.chunks_exact_mut(4).zip(words) {
            slot.copy_from_slice(&word.to_le_bytes());
        }
        bytes[16..].copy_from_slice(&self.king_buckets);
        bytes
    }

    pub fn from_bytes(bytes: &[u8; SHAPE_BYTES]) -> FileShape {
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let mut king_buckets = [0; 64];
        king_buckets.copy_from_slice(&bytes[16..]);
        FileShape { hidden: word(0), activation: word(4), output_buckets: word(8), mirroring: word(12), king_buckets }
    }
}

/// The shape in words, such as "512 hidden neurons, SCReLU, 8 output buckets, no king buckets".
impl fmt::Display for FileShape {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        write!(f, "{} hidden neuron{}, ", self.hidden, plural(self.hidden))?;
        match self.activation {
            CRELU => write!(f, "CReLU")?,
            SCRELU => write!(f, "SCReLU")?,
            code => write!(f, "activation code {code}")?,
        }
        write!(f, ", {} output bucket{}, ", self.output_buckets, plural(self.output_buckets))?;
        let kings = self.king_buckets.iter().max().map_or(0, |&most| most as u32 + 1);
        match (kings, self.mirroring) {
            (1, 0) => write!(f, "no king buckets"),
            (kings, 0) => write!(f, "{kings} king buckets"),
            (kings, 1) => write!(f, "{kings} king bucket{}, mirrored", plural(kings)),
            (kings, code) => write!(f, "{kings} king bucket{}, mirroring code {code}", plural(kings)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_stored_and_named() {
        let engine = FileShape::ENGINE;
        assert_eq!(FileShape::from_bytes(&engine.to_bytes()), engine);
        assert_eq!(engine.to_string(), "512 hidden neurons, SCReLU, 8 output buckets, no king buckets");
        let mut king_buckets = [0; 64];
        king_buckets[8..].fill(3);
        let other = FileShape { hidden: 256, activation: CRELU, output_buckets: 1, mirroring: 1, king_buckets };
        assert_eq!(FileShape::from_bytes(&other.to_bytes()), other);
        assert_eq!(other.to_string(), "256 hidden neurons, CReLU, 1 output bucket, 4 king buckets, mirrored");
        let odd = FileShape { activation: 7, mirroring: 9, ..engine };
        assert_eq!(
            odd.to_string(),
            "512 hidden neurons, activation code 7, 8 output buckets, 1 king bucket, mirroring code 9"
        );
    }
}
