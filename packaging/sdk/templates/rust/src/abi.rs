//! patchbay/plugin.h, ABI 1.0, declared by hand: every struct `#[repr(C)]` with the header's
//! fields in the header's order. The sizes are checked at compile time below, and the offsets
//! by `cargo test --offline`, against what a C compiler gives for the header on x86_64 and
//! aarch64 Linux. The header's comments are the contract (lifecycle, threading class of each
//! call, ownership). It builds with Debian 12's rustc (1.63): nothing newer is used.
#![allow(non_camel_case_types)]

use core::ffi::c_void;
use core::mem::size_of;
use std::os::raw::c_char;

pub const PB_ABI_MAJOR: u32 = 1;
pub const PB_ABI_MINOR: u32 = 0;

pub type pb_status = i32;
pub const PB_OK: pb_status = 0;
pub const PB_ERR_INVALID_CONFIG: pb_status = -1;
pub const PB_ERR_INVALID_ARGUMENT: pb_status = -2;
pub const PB_ERR_UNKNOWN_PORT: pb_status = -3;
pub const PB_ERR_TYPE_MISMATCH: pb_status = -4;
pub const PB_ERR_UNAVAILABLE: pb_status = -5;
pub const PB_ERR_NO_MEMORY: pb_status = -6;
pub const PB_ERR_INTERNAL: pb_status = -7;
pub const PB_ERR_NOT_SUPPORTED: pb_status = -8;
pub const PB_ERR_INVALID_STATE: pb_status = -9;
pub const PB_ERR_NOT_FOUND: pb_status = -10;

pub const PB_ERROR_CAPACITY: usize = 512;

#[repr(C)]
pub struct pb_error {
    pub message: [c_char; PB_ERROR_CAPACITY],
}

pub type pb_value_type = u32;
pub const PB_VALUE_TRIGGER: pb_value_type = 1;
pub const PB_VALUE_BOOL: pb_value_type = 2;
pub const PB_VALUE_INTEGER: pb_value_type = 3;
pub const PB_VALUE_NUMBER: pb_value_type = 4;
pub const PB_VALUE_TEXT: pb_value_type = 5;
pub const PB_VALUE_COLOR: pb_value_type = 6;
pub const PB_VALUE_LIGHT: pb_value_type = 7;
pub const PB_VALUE_BUTTON: pb_value_type = 8;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct pb_color {
    pub hue: f64,
    pub saturation: f64,
    pub brightness: f64,
}

pub const PB_LIGHT_ON: u32 = 1 << 0;
pub const PB_LIGHT_BRIGHTNESS: u32 = 1 << 1;
pub const PB_LIGHT_COLOR: u32 = 1 << 2;
pub const PB_LIGHT_COLOR_TEMPERATURE: u32 = 1 << 3;
pub const PB_LIGHT_TRANSITION: u32 = 1 << 4;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct pb_light {
    pub fields: u32,
    pub on: u32,
    pub brightness: f64,
    pub color: pb_color,
    pub color_temperature: f64,
    pub transition_ms: u32,
    pub reserved: u32,
}

pub type pb_button_action = u32;
pub const PB_BUTTON_DOWN: pb_button_action = 1;
pub const PB_BUTTON_UP: pb_button_action = 2;
pub const PB_BUTTON_CLICK: pb_button_action = 3;
pub const PB_BUTTON_DOUBLE_CLICK: pb_button_action = 4;
pub const PB_BUTTON_HOLD: pb_button_action = 5;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct pb_button {
    pub action: pb_button_action,
    pub queued: u32,
    pub age_ms: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pb_text {
    pub data: *const c_char,
    pub length: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union pb_value_payload {
    pub boolean: u32,
    pub integer: i64,
    pub number: f64,
    pub text: pb_text,
    pub color: pb_color,
    pub light: pb_light,
    pub button: pb_button,
    pub reserved: [u8; 64],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pb_value {
    pub size: u32,
    pub type_: pb_value_type,
    pub u: pb_value_payload,
}

pub type pb_port_direction = u32;
pub const PB_PORT_INPUT: pb_port_direction = 1;
pub const PB_PORT_OUTPUT: pb_port_direction = 2;

pub type pb_port_kind = u32;
pub const PB_PORT_EVENT: pb_port_kind = 1;
pub const PB_PORT_STATE: pb_port_kind = 2;

#[repr(C)]
pub struct pb_port {
    pub size: u32,
    pub direction: pb_port_direction,
    pub kind: pb_port_kind,
    pub type_: pb_value_type,
    pub name: *const c_char,
    pub description: *const c_char,
}

pub type pb_log_level = u32;
pub const PB_LOG_TRACE: pb_log_level = 0;
pub const PB_LOG_DEBUG: pb_log_level = 1;
pub const PB_LOG_INFO: pb_log_level = 2;
pub const PB_LOG_NOTICE: pb_log_level = 3;
pub const PB_LOG_WARNING: pb_log_level = 4;
pub const PB_LOG_ERROR: pb_log_level = 5;

/// Opaque host context.
#[repr(C)]
pub struct pb_host {
    _private: [u8; 0],
}

pub type pb_timer_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, timer_id: u64)>;

#[repr(C)]
pub struct pb_host_api {
    pub size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub reserved: u32,
    pub add_port: Option<unsafe extern "C" fn(*mut pb_host, *const pb_port, *mut u32) -> pb_status>,
    pub publish: Option<unsafe extern "C" fn(*mut pb_host, u32, *const pb_value) -> pb_status>,
    pub log: Option<unsafe extern "C" fn(*mut pb_host, pb_log_level, *const c_char)>,
    pub monotonic_ns: Option<unsafe extern "C" fn(*mut pb_host) -> u64>,
    pub schedule: Option<
        unsafe extern "C" fn(*mut pb_host, u64, pb_timer_fn, *mut c_void, *mut u64) -> pb_status,
    >,
    pub cancel_timer: Option<unsafe extern "C" fn(*mut pb_host, u64) -> pb_status>,
    pub report_fault: Option<unsafe extern "C" fn(*mut pb_host, pb_status, *const c_char)>,
    pub config_string:
        Option<unsafe extern "C" fn(*mut pb_host, *const c_char, *mut *const c_char) -> pb_status>,
    pub config_integer:
        Option<unsafe extern "C" fn(*mut pb_host, *const c_char, *mut i64) -> pb_status>,
    pub config_number:
        Option<unsafe extern "C" fn(*mut pb_host, *const c_char, *mut f64) -> pb_status>,
    pub config_bool:
        Option<unsafe extern "C" fn(*mut pb_host, *const c_char, *mut u32) -> pb_status>,
    pub config_count:
        Option<unsafe extern "C" fn(*mut pb_host, *const c_char, *mut u32) -> pb_status>,
    pub config_key: Option<
        unsafe extern "C" fn(*mut pb_host, *const c_char, u32, *mut *const c_char) -> pb_status,
    >,
}

#[repr(C)]
pub struct pb_create_args {
    pub size: u32,
    pub reserved: u32,
    pub api: *const pb_host_api,
    pub host: *mut pb_host,
    pub instance_name: *const c_char,
    pub config_json: *const c_char,
    pub state_directory: *const c_char,
}

#[repr(C)]
pub struct pb_plugin_descriptor {
    pub size: u32,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub reserved: u32,
    pub name: *const c_char,
    pub version: *const c_char,
    pub description: *const c_char,
    pub create: Option<
        unsafe extern "C" fn(*const pb_create_args, *mut *mut c_void, *mut pb_error) -> pb_status,
    >,
    pub start: Option<unsafe extern "C" fn(*mut c_void, *mut pb_error) -> pb_status>,
    pub receive:
        Option<unsafe extern "C" fn(*mut c_void, u32, *const pb_value, *mut pb_error) -> pb_status>,
    pub stop: Option<unsafe extern "C" fn(*mut c_void, *mut pb_error) -> pb_status>,
    pub destroy: Option<unsafe extern "C" fn(*mut c_void)>,
}

// The sizes C gives plugin.h on 64-bit Linux (gcc: sizeof); a mismatch fails the build.
const _: () = {
    assert!(size_of::<pb_error>() == 512);
    assert!(size_of::<pb_color>() == 24);
    assert!(size_of::<pb_light>() == 56);
    assert!(size_of::<pb_button>() == 16);
    assert!(size_of::<pb_text>() == 16);
    assert!(size_of::<pb_value>() == 72);
    assert!(size_of::<pb_port>() == 32);
    assert!(size_of::<pb_host_api>() == 120);
    assert!(size_of::<pb_create_args>() == 48);
    assert!(size_of::<pb_plugin_descriptor>() == 80);
};

/// The offset of a field, measured on an uninitialised value (`core::mem::offset_of!` needs
/// Rust 1.77, Debian 12 has 1.63).
#[cfg(test)]
macro_rules! field_offset {
    ($type:ty, $field:ident) => {{
        let value = core::mem::MaybeUninit::<$type>::uninit();
        let base = value.as_ptr();
        // Only the address is taken: nothing is read from the uninitialised value.
        let field = unsafe { core::ptr::addr_of!((*base).$field) };
        field as usize - base as usize
    }};
}

/// The offsets C gives plugin.h on 64-bit Linux (gcc: offsetof): `cargo test --offline`.
#[cfg(test)]
#[test]
fn offsets_match_the_c_header() {
    assert!(field_offset!(pb_light, brightness) == 8);
    assert!(field_offset!(pb_light, color) == 16);
    assert!(field_offset!(pb_light, color_temperature) == 40);
    assert!(field_offset!(pb_light, transition_ms) == 48);
    assert!(field_offset!(pb_value, u) == 8);
    assert!(field_offset!(pb_port, name) == 16);
    assert!(field_offset!(pb_host_api, add_port) == 16);
    assert!(field_offset!(pb_host_api, config_key) == 112);
    assert!(field_offset!(pb_create_args, api) == 8);
    assert!(field_offset!(pb_create_args, state_directory) == 40);
    assert!(field_offset!(pb_plugin_descriptor, name) == 16);
    assert!(field_offset!(pb_plugin_descriptor, create) == 40);
    assert!(field_offset!(pb_plugin_descriptor, destroy) == 72);
}
