import { accountJourney } from './account-journey';

accountJourney(['es']);
