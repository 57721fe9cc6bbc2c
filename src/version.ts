// The version of the API and of everything that describes it (/openapi.json, /spec, the MCP server and manifest).
export const API_VERSION = '1.0.0';
