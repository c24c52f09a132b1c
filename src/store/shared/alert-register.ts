/**
 * An alert with the gateway, Modbus device and register its events name (both
 * engines): the register is the one the alert remembers (alerts.register_id, set
 * by its rule's trigger or by the site that forwards it), null for an offline alert.
 */
export const alertWithNamesSql = `alerts a
  LEFT JOIN gateways g ON g.id = a.gateway_id
  LEFT JOIN registers r ON r.id = a.register_id
  LEFT JOIN modbus_devices d ON d.id = r.modbus_device_id`;
