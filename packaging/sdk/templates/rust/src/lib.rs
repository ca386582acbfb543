//! doorbell: a patchbay plugin in Rust, the starting point of your own.
//!
//! Ports:
//!   input  press    (event, button)   a button press; clicks (and holds, with ring_on_hold) ring
//!   output ring     (event, text)     the `message`, once per ring
//!   output rings    (state, integer)  how many times it rang since the instance started
//! Config (the instance's section in /etc/patchbay/conf.d):
//!   message = "Someone is at the door"   (text, default "ding dong")
//!   ring_on_hold = true                   (bool, default false: only clicks ring)
//!
//! `src/abi.rs` is patchbay/plugin.h in Rust; `src/kit.rs` the safe wrapper. Build with
//! `cargo build --offline --release` (no dependencies) or `make`.
pub mod abi;
pub mod kit;

use kit::{
    ButtonAction, Error, Host, InputPort, LogLevel, OutputPort, Plugin, PortKind, Value, ValueType,
};

struct Doorbell {
    host: Host,
    message: String,
    ring_on_hold: bool,
    rings: i64,
    press: InputPort,
    ring: OutputPort,
    rings_port: OutputPort,
}

impl Plugin for Doorbell {
    fn create(host: Host) -> Result<Self, Error> {
        Ok(Doorbell {
            message: host
                .config_string("message")?
                .unwrap_or_else(|| "ding dong".into()),
            ring_on_hold: host.config_bool("ring_on_hold")?.unwrap_or(false),
            rings: 0,
            press: host.add_input("press", ValueType::Button, PortKind::Event)?,
            ring: host.add_output("ring", ValueType::Text, PortKind::Event)?,
            rings_port: host.add_output("rings", ValueType::Integer, PortKind::State)?,
            host,
        })
    }

    fn start(&mut self) -> Result<(), Error> {
        self.host
            .publish(self.rings_port, &Value::Integer(self.rings))?;
        self.host.log(LogLevel::Info, "doorbell ready");
        Ok(())
    }

    fn receive(&mut self, port: InputPort, value: Value) -> Result<(), Error> {
        let action = match value {
            Value::Button { action, .. } => action,
            _ => {
                return Err(Error::new(
                    abi::PB_ERR_TYPE_MISMATCH,
                    "press takes a button",
                ))
            }
        };
        if port != self.press {
            return Err(Error::new(
                abi::PB_ERR_UNKNOWN_PORT,
                format!("unexpected input port {}", port.0),
            ));
        }
        let rings = matches!(action, ButtonAction::Click | ButtonAction::DoubleClick)
            || (action == ButtonAction::Hold && self.ring_on_hold);
        if rings {
            self.rings += 1;
            self.host
                .publish(self.ring, &Value::Text(self.message.clone()))?;
            self.host
                .publish(self.rings_port, &Value::Integer(self.rings))?;
        }
        Ok(())
    }
}

export_plugin!(Doorbell, name: "doorbell", version: "1.0.0", description: "Rings (publishes a message and counts) on button clicks");
