//! The interpreter's threads: the machine's thread (queues, coordinates, barrier epoch)
//! around the interpreter's frame of variable slots.

pub(crate) use tirproof_machine::thread::coords_of;

pub(crate) type Thread = tirproof_machine::Thread<crate::frame::Frame>;
