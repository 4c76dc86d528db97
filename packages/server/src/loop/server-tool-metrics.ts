import { Counter, type Registry } from 'prom-client'

/** Counts server tool calls in the server's registry, by tool type and status. */
export function serverToolCallCounter(registry: Registry): (type: string, status: string) => void {
  const counter = new Counter({
    name: 'syntic_server_tool_calls_total',
    help: 'Server tool calls the loop ran, by tool type and status',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
  })
  return (type, status) => counter.inc({ type, status })
}
