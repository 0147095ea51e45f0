import { installValidationMessages } from '../../src/lib/validation-messages';

installValidationMessages();
