/**
 * The longest names the console accepts (server and forms alike): long enough for any real name, short enough
 * that a list stays readable at 1366 px (longer names are cut with an ellipsis there, in full in a tooltip).
 */
export const CHANNEL_NAME_MAX = 64;
export const TOKEN_NAME_MAX = 50;
