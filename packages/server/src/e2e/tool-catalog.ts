// Tool definitions for the tool search tests: a few always loaded, most deferred.

type Json = Record<string, unknown>

export function fn(
  name: string,
  description: string,
  properties: Json = {},
  deferred = true,
): Json {
  const tool: Json = {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties, required: Object.keys(properties) },
    },
  }
  if (deferred) tool.defer_loading = true
  return tool
}

const orderNumber = { order_number: { type: 'string' } }

export const GET_ORDER = fn('get_order', 'Look up an order by its number.', orderNumber, false)

export const CREATE_REFUND = fn(
  'create_refund',
  'Refund part or all of an order to the customer.',
  {
    ...orderNumber,
    amount_pence: { type: 'integer' },
  },
)

const DECOYS: [string, string][] = [
  ['send_email', 'Send an email message to a recipient.'],
  ['list_invoices', 'List the invoices of an account.'],
  ['update_address', 'Change the postal address of a customer.'],
  ['cancel_subscription', 'Cancel a recurring subscription plan.'],
  ['create_invoice', 'Create a new invoice for an account.'],
  ['get_weather', 'Get the weather forecast for a city.'],
  ['search_products', 'Search the product catalogue by keyword.'],
  ['add_to_cart', 'Add a product to the shopping cart.'],
  ['schedule_meeting', 'Schedule a meeting in the calendar.'],
  ['translate_text', 'Translate text into another language.'],
  ['reset_password', 'Send a password reset link to a user.'],
  ['track_shipment', 'Track where a parcel shipment is now.'],
  ['apply_coupon', 'Apply a discount coupon code to a basket.'],
  ['export_report', 'Export a sales report as a spreadsheet.'],
  ['close_ticket', 'Close a support ticket as resolved.'],
]

export const DEFERRED_DECOYS: Json[] = DECOYS.map(([name, description]) =>
  fn(name, description, { id: { type: 'string' } }),
)

/** The messages format's custom tool for the same definition. */
export function asMessagesTool(tool: Json): Json {
  const { function: definition, defer_loading } = tool as {
    function: { name: string; description: string; parameters: Json }
    defer_loading?: boolean
  }
  const out: Json = {
    name: definition.name,
    description: definition.description,
    input_schema: definition.parameters,
  }
  if (defer_loading !== undefined) out.defer_loading = defer_loading
  return out
}

export const REFUND_ARGS = '{"order_number":"582131","amount_pence":1250}'
