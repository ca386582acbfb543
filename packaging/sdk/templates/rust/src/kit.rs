//! A safe wrapper over the C ABI, like the Swift kit's `PatchbayPlugin`: implement [`Plugin`],
//! then `export_plugin!` builds the descriptor and the one exported symbol. No panic crosses
//! the boundary: every call into the plugin runs under `catch_unwind` and a panic becomes
//! `PB_ERR_INTERNAL` with a message.
// The unsafe blocks inside unsafe fns are deliberate (required from the 2024 edition on);
// Debian 12's rustc 1.63 calls them unnecessary.
#![allow(unused_unsafe)]
use crate::abi::*;
use std::ffi::{c_void, CStr, CString};
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An error returned to the hub: a status code and a message it logs.
#[derive(Debug)]
pub struct Error {
    pub status: pb_status,
    pub message: String,
}

impl Error {
    pub fn new(status: pb_status, message: impl Into<String>) -> Self {
        Error {
            status,
            message: message.into(),
        }
    }
    /// The instance's config is wrong (not retried as is).
    pub fn config(message: impl Into<String>) -> Self {
        Error::new(PB_ERR_INVALID_CONFIG, message)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonAction {
    Down,
    Up,
    Click,
    DoubleClick,
    Hold,
}

/// A partial light command: `None` fields are kept as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Light {
    pub on: Option<bool>,
    pub brightness: Option<f64>,
    /// Hue in degrees [0, 360), saturation in percent.
    pub color: Option<(f64, f64)>,
    pub color_temperature: Option<f64>,
    pub transition_ms: Option<u32>,
}

/// A typed value, owned (text included).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Trigger,
    Bool(bool),
    Integer(i64),
    Number(f64),
    Text(String),
    Color {
        hue: f64,
        saturation: f64,
        brightness: f64,
    },
    Light(Light),
    Button {
        action: ButtonAction,
        queued: bool,
        age_ms: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    Trigger = 1,
    Bool,
    Integer,
    Number,
    Text,
    Color,
    Light,
    Button,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    /// Every value matters, in order.
    Event = 1,
    /// Only the latest value matters.
    State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Notice,
    Warning,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputPort(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputPort(pub u32);

/// The host's services for one instance. Copy it into threads: publish, log and schedule may
/// be called from any thread between create() and the return of stop().
#[derive(Clone, Copy)]
pub struct Host {
    api: *const pb_host_api,
    host: *mut pb_host,
}

// plugin.h: the host table's [any thread] calls may be made concurrently from any thread.
unsafe impl Send for Host {}
unsafe impl Sync for Host {}

impl Host {
    fn api(&self) -> &pb_host_api {
        unsafe { &*self.api }
    }

    /// Declares an input port. Only inside `Plugin::create`.
    pub fn add_input(
        &self,
        name: &str,
        value_type: ValueType,
        kind: PortKind,
    ) -> Result<InputPort, Error> {
        self.add_port(name, PB_PORT_INPUT, value_type, kind)
            .map(InputPort)
    }

    /// Declares an output port. Only inside `Plugin::create`.
    pub fn add_output(
        &self,
        name: &str,
        value_type: ValueType,
        kind: PortKind,
    ) -> Result<OutputPort, Error> {
        self.add_port(name, PB_PORT_OUTPUT, value_type, kind)
            .map(OutputPort)
    }

    fn add_port(
        &self,
        name: &str,
        direction: u32,
        value_type: ValueType,
        kind: PortKind,
    ) -> Result<u32, Error> {
        let c_name = CString::new(name)
            .map_err(|_| Error::new(PB_ERR_INVALID_ARGUMENT, "port name has a NUL"))?;
        let port = pb_port {
            size: std::mem::size_of::<pb_port>() as u32,
            direction,
            kind: kind as u32,
            type_: value_type as u32,
            name: c_name.as_ptr(),
            description: std::ptr::null(),
        };
        let mut index = 0u32;
        let add = self
            .api()
            .add_port
            .ok_or_else(|| Error::new(PB_ERR_INTERNAL, "no add_port"))?;
        match unsafe { add(self.host, &port, &mut index) } {
            PB_OK => Ok(index),
            status => Err(Error::new(status, format!("the hub refused port '{name}'"))),
        }
    }

    /// Publishes a value on an output port (after start() has begun). The value is copied.
    pub fn publish(&self, port: OutputPort, value: &Value) -> Result<(), Error> {
        let text; // keeps a Text value's bytes alive through the call
        let mut raw = pb_value {
            size: std::mem::size_of::<pb_value>() as u32,
            type_: 0,
            u: pb_value_payload { reserved: [0; 64] },
        };
        match value {
            Value::Trigger => raw.type_ = PB_VALUE_TRIGGER,
            Value::Bool(flag) => {
                raw.type_ = PB_VALUE_BOOL;
                raw.u.boolean = *flag as u32;
            }
            Value::Integer(integer) => {
                raw.type_ = PB_VALUE_INTEGER;
                raw.u.integer = *integer;
            }
            Value::Number(number) => {
                raw.type_ = PB_VALUE_NUMBER;
                raw.u.number = *number;
            }
            Value::Text(string) => {
                text = string.as_bytes();
                raw.type_ = PB_VALUE_TEXT;
                raw.u.text = pb_text {
                    data: text.as_ptr() as *const c_char,
                    length: text.len() as u32,
                };
            }
            Value::Color {
                hue,
                saturation,
                brightness,
            } => {
                raw.type_ = PB_VALUE_COLOR;
                raw.u.color = pb_color {
                    hue: *hue,
                    saturation: *saturation,
                    brightness: *brightness,
                };
            }
            Value::Light(light) => {
                raw.type_ = PB_VALUE_LIGHT;
                raw.u.light = light_to_c(light);
            }
            Value::Button {
                action,
                queued,
                age_ms,
            } => {
                raw.type_ = PB_VALUE_BUTTON;
                raw.u.button = pb_button {
                    action: *action as u32 + 1,
                    queued: *queued as u32,
                    age_ms: *age_ms,
                    reserved: 0,
                };
            }
        }
        let publish = self
            .api()
            .publish
            .ok_or_else(|| Error::new(PB_ERR_INTERNAL, "no publish"))?;
        match unsafe { publish(self.host, port.0, &raw) } {
            PB_OK => Ok(()),
            status => Err(Error::new(status, "publish refused")),
        }
    }

    /// One line in the hub's log, prefixed with the instance's name.
    pub fn log(&self, level: LogLevel, text: &str) {
        if let (Some(log), Ok(message)) = (self.api().log, CString::new(text.replace('\0', " "))) {
            unsafe { log(self.host, level as u32, message.as_ptr()) }
        }
    }

    /// A text config key (`None` when absent).
    pub fn config_string(&self, key: &str) -> Result<Option<String>, Error> {
        let key_c = CString::new(key).map_err(|_| Error::config("config key has a NUL"))?;
        let mut out: *const c_char = std::ptr::null();
        let get = self
            .api()
            .config_string
            .ok_or_else(|| Error::new(PB_ERR_INTERNAL, "no config_string"))?;
        match unsafe { get(self.host, key_c.as_ptr(), &mut out) } {
            PB_OK => Ok(Some(
                unsafe { CStr::from_ptr(out) }
                    .to_string_lossy()
                    .into_owned(),
            )),
            PB_ERR_NOT_FOUND => Ok(None),
            _ => Err(Error::config(format!("{key} must be a text"))),
        }
    }

    /// A bool config key (`None` when absent).
    pub fn config_bool(&self, key: &str) -> Result<Option<bool>, Error> {
        let key_c = CString::new(key).map_err(|_| Error::config("config key has a NUL"))?;
        let mut out = 0u32;
        let get = self
            .api()
            .config_bool
            .ok_or_else(|| Error::new(PB_ERR_INTERNAL, "no config_bool"))?;
        match unsafe { get(self.host, key_c.as_ptr(), &mut out) } {
            PB_OK => Ok(Some(out != 0)),
            PB_ERR_NOT_FOUND => Ok(None),
            _ => Err(Error::config(format!("{key} must be true or false"))),
        }
    }

    /// An integer config key (`None` when absent).
    pub fn config_integer(&self, key: &str) -> Result<Option<i64>, Error> {
        let key_c = CString::new(key).map_err(|_| Error::config("config key has a NUL"))?;
        let mut out = 0i64;
        let get = self
            .api()
            .config_integer
            .ok_or_else(|| Error::new(PB_ERR_INTERNAL, "no config_integer"))?;
        match unsafe { get(self.host, key_c.as_ptr(), &mut out) } {
            PB_OK => Ok(Some(out)),
            PB_ERR_NOT_FOUND => Ok(None),
            _ => Err(Error::config(format!("{key} must be an integer"))),
        }
    }
}

fn light_to_c(light: &Light) -> pb_light {
    let mut raw = pb_light::default();
    if let Some(on) = light.on {
        raw.fields |= PB_LIGHT_ON;
        raw.on = on as u32;
    }
    if let Some(brightness) = light.brightness {
        raw.fields |= PB_LIGHT_BRIGHTNESS;
        raw.brightness = brightness;
    }
    if let Some((hue, saturation)) = light.color {
        raw.fields |= PB_LIGHT_COLOR;
        raw.color = pb_color {
            hue,
            saturation,
            brightness: 0.0,
        };
    }
    if let Some(mired) = light.color_temperature {
        raw.fields |= PB_LIGHT_COLOR_TEMPERATURE;
        raw.color_temperature = mired;
    }
    if let Some(ms) = light.transition_ms {
        raw.fields |= PB_LIGHT_TRANSITION;
        raw.transition_ms = ms;
    }
    raw
}

/// Reads a value the host passed in (borrowed for the call) into an owned `Value`.
unsafe fn value_from_c(raw: &pb_value) -> Option<Value> {
    Some(match raw.type_ {
        PB_VALUE_TRIGGER => Value::Trigger,
        PB_VALUE_BOOL => Value::Bool(raw.u.boolean != 0),
        PB_VALUE_INTEGER => Value::Integer(raw.u.integer),
        PB_VALUE_NUMBER => Value::Number(raw.u.number),
        PB_VALUE_TEXT => {
            let text = raw.u.text;
            let bytes = if text.data.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts(text.data as *const u8, text.length as usize)
            };
            Value::Text(String::from_utf8_lossy(bytes).into_owned())
        }
        PB_VALUE_COLOR => {
            let c = raw.u.color;
            Value::Color {
                hue: c.hue,
                saturation: c.saturation,
                brightness: c.brightness,
            }
        }
        PB_VALUE_LIGHT => {
            let l = raw.u.light;
            Value::Light(Light {
                on: (l.fields & PB_LIGHT_ON != 0).then_some(l.on != 0),
                brightness: (l.fields & PB_LIGHT_BRIGHTNESS != 0).then_some(l.brightness),
                color: (l.fields & PB_LIGHT_COLOR != 0)
                    .then_some((l.color.hue, l.color.saturation)),
                color_temperature: (l.fields & PB_LIGHT_COLOR_TEMPERATURE != 0)
                    .then_some(l.color_temperature),
                transition_ms: (l.fields & PB_LIGHT_TRANSITION != 0).then_some(l.transition_ms),
            })
        }
        PB_VALUE_BUTTON => {
            let b = raw.u.button;
            let action = match b.action {
                PB_BUTTON_DOWN => ButtonAction::Down,
                PB_BUTTON_UP => ButtonAction::Up,
                PB_BUTTON_CLICK => ButtonAction::Click,
                PB_BUTTON_DOUBLE_CLICK => ButtonAction::DoubleClick,
                PB_BUTTON_HOLD => ButtonAction::Hold,
                _ => return None,
            };
            Value::Button {
                action,
                queued: b.queued != 0,
                age_ms: b.age_ms,
            }
        }
        _ => return None,
    })
}

/// A plugin instance. The hub calls these one at a time, in the plugin context (plugin.h);
/// `Send` because they may run on different OS threads over time.
pub trait Plugin: Sized + Send + 'static {
    /// Reads the config and declares ports with `host.add_input` / `host.add_output`.
    fn create(host: Host) -> Result<Self, Error>;
    /// Begins work; publishing is allowed from here on.
    fn start(&mut self) -> Result<(), Error> {
        Ok(())
    }
    /// One value for an input port, of the port's declared type.
    fn receive(&mut self, port: InputPort, value: Value) -> Result<(), Error>;
    /// Ends work: after it returns, no thread of the plugin may use the `Host`.
    fn stop(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

fn write_error(error: *mut pb_error, message: &str) {
    if error.is_null() {
        return;
    }
    let bytes = message.as_bytes();
    let count = bytes.len().min(PB_ERROR_CAPACITY - 1);
    let buffer = unsafe { &mut (*error).message };
    for (slot, byte) in buffer.iter_mut().zip(&bytes[..count]) {
        *slot = *byte as c_char;
    }
    buffer[count] = 0;
}

/// Runs `body`, turning an error or a panic into a status and a message.
fn guard(error: *mut pb_error, body: impl FnOnce() -> Result<(), Error>) -> pb_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => PB_OK,
        Ok(Err(failure)) => {
            write_error(error, &failure.message);
            failure.status
        }
        Err(_) => {
            write_error(error, "the plugin panicked");
            PB_ERR_INTERNAL
        }
    }
}

unsafe extern "C" fn create<P: Plugin>(
    args: *const pb_create_args,
    out: *mut *mut c_void,
    error: *mut pb_error,
) -> pb_status {
    guard(error, || {
        let args = unsafe { &*args };
        let plugin = P::create(Host {
            api: args.api,
            host: args.host,
        })?;
        unsafe { *out = Box::into_raw(Box::new(plugin)) as *mut c_void };
        Ok(())
    })
}

unsafe extern "C" fn start<P: Plugin>(instance: *mut c_void, error: *mut pb_error) -> pb_status {
    guard(error, || unsafe { &mut *(instance as *mut P) }.start())
}

unsafe extern "C" fn receive<P: Plugin>(
    instance: *mut c_void,
    port: u32,
    value: *const pb_value,
    error: *mut pb_error,
) -> pb_status {
    guard(error, || {
        let value = unsafe { value_from_c(&*value) }
            .ok_or_else(|| Error::new(PB_ERR_TYPE_MISMATCH, "unknown value type"))?;
        unsafe { &mut *(instance as *mut P) }.receive(InputPort(port), value)
    })
}

unsafe extern "C" fn stop<P: Plugin>(instance: *mut c_void, error: *mut pb_error) -> pb_status {
    guard(error, || unsafe { &mut *(instance as *mut P) }.stop())
}

unsafe extern "C" fn destroy<P: Plugin>(instance: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        drop(unsafe { Box::from_raw(instance as *mut P) })
    }));
}

/// The descriptor, valid for the life of the process (a static made by `export_plugin!`).
pub struct Descriptor(pb_plugin_descriptor);

// Only pointers to static strings and functions: never written after construction.
unsafe impl Sync for Descriptor {}

impl Descriptor {
    /// `name`, `version` and `description` end in a NUL (export_plugin! adds it).
    pub const fn new<P: Plugin>(
        name: &'static str,
        version: &'static str,
        description: &'static str,
    ) -> Self {
        Descriptor(pb_plugin_descriptor {
            size: std::mem::size_of::<pb_plugin_descriptor>() as u32,
            abi_major: PB_ABI_MAJOR,
            abi_minor: PB_ABI_MINOR,
            reserved: 0,
            name: name.as_ptr() as *const c_char,
            version: version.as_ptr() as *const c_char,
            description: description.as_ptr() as *const c_char,
            create: Some(create::<P>),
            start: Some(start::<P>),
            receive: Some(receive::<P>),
            stop: Some(stop::<P>),
            destroy: Some(destroy::<P>),
        })
    }

    pub const fn as_ptr(&'static self) -> *const pb_plugin_descriptor {
        &self.0
    }
}

/// Exports `patchbay_plugin_describe` for a `Plugin` type. The name must be the plugin's name,
/// the one in `libpatchbay-plugin-NAME.so` and in `plugin = "NAME"`.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty, name: $name:literal, version: $version:literal, description: $description:literal) => {
        static DESCRIPTOR: $crate::kit::Descriptor = $crate::kit::Descriptor::new::<$plugin>(
            concat!($name, "\0"),
            concat!($version, "\0"),
            concat!($description, "\0"),
        );

        #[no_mangle]
        pub extern "C" fn patchbay_plugin_describe() -> *const $crate::abi::pb_plugin_descriptor {
            DESCRIPTOR.as_ptr()
        }
    };
}
