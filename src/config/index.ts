/**
 * The configuration floor: every setting, how it is read, and how it is described. It
 * imports nothing of the service above it (store, http, commands), only plain
 * modules below (src/core).
 */

export { ConfigError } from '../core/config-error.js';
export { type ApiKey, duplicateKeys, hashKey, KEY_TEXT, parseApiKeys, type Scope } from './api-keys.js';
export {
  alignColumns,
  ENV_FILE_HELP,
  HELP_WIDTH,
  helpText,
  plainText,
  SERVED_BY_DEFAULT,
  SETTING_GROUPS,
  settingsHelp,
} from './help.js';
export { CONFIG_DEFAULTS, type CommandArguments, defaultConfig, type LoadedArguments, loadConfig } from './load.js';
export { appOriginsOf, appUrlOf, MAIL_SETTINGS } from './mail-settings.js';
export { type OverrideWireMethods, parseOverrideSetting } from './method-override-setting.js';
export { settingMeant } from './misspelt-variables.js';
export { envNameOf, flagNameOf, type NamedSetting, nameSettings } from './names.js';
export { editDistance, nearest } from './nearest.js';
export { isLoopbackHttp, type ProviderSetting, type ProviderSettings } from './provider-settings.js';
export type { Setting, SettingGroup } from './setting.js';
export { type Config, SETTING_LIST, SETTINGS } from './settings.js';
export { settingsTable, withSettingsTable } from './settings-doc.js';
